-- CreateTable
CREATE TABLE "schedules" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "target_session_id" TEXT NOT NULL,
    "target_session_title" TEXT NOT NULL DEFAULT '',
    "setting_session_id" TEXT NOT NULL,
    "setting_session_title" TEXT NOT NULL DEFAULT '',
    "at" TIMESTAMP(3) NOT NULL,
    "every_minutes" INTEGER NOT NULL,
    "once" BOOLEAN NOT NULL,
    "next_fire_at" TIMESTAMP(3) NOT NULL,
    "last_fired_at" TIMESTAMP(3),
    "fired_count" INTEGER NOT NULL DEFAULT 0,
    "skipped_count" INTEGER NOT NULL DEFAULT 0,
    "held_for_approval" BOOLEAN NOT NULL DEFAULT false,
    "held_since" TIMESTAMP(3),
    "provenance" JSONB NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL,
    "ended_at" TIMESTAMP(3),
    "end_reason" TEXT,

    CONSTRAINT "schedules_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "firings" (
    "id" TEXT NOT NULL,
    "schedule_id" TEXT NOT NULL,
    "due_at" TIMESTAMP(3) NOT NULL,
    "fired_at" TIMESTAMP(3) NOT NULL,
    "taken_at" TIMESTAMP(3),

    CONSTRAINT "firings_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "schedules_ended_at_next_fire_at_idx" ON "schedules"("ended_at", "next_fire_at");

-- CreateIndex
CREATE INDEX "schedules_target_session_id_idx" ON "schedules"("target_session_id");

-- CreateIndex
CREATE INDEX "schedules_setting_session_id_idx" ON "schedules"("setting_session_id");

-- CreateIndex
CREATE INDEX "schedules_user_id_idx" ON "schedules"("user_id");

-- CreateIndex
CREATE INDEX "firings_schedule_id_fired_at_idx" ON "firings"("schedule_id", "fired_at");

-- AddForeignKey
ALTER TABLE "firings" ADD CONSTRAINT "firings_schedule_id_fkey" FOREIGN KEY ("schedule_id") REFERENCES "schedules"("id") ON DELETE CASCADE ON UPDATE CASCADE;
