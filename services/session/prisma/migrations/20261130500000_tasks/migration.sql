-- CreateTable
CREATE TABLE "tasks" (
    "id" TEXT NOT NULL,
    "session_id" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "type" TEXT NOT NULL DEFAULT 'local_bash',
    "status" TEXT NOT NULL,
    "exit_code" INTEGER,
    "reason" TEXT NOT NULL DEFAULT '',
    "cwd" TEXT NOT NULL,
    "output_path" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "runner_id" TEXT NOT NULL,
    "pid" INTEGER,
    "started_at" TIMESTAMP(3) NOT NULL,
    "ended_at" TIMESTAMP(3),
    "last_output_at" TIMESTAMP(3),

    CONSTRAINT "tasks_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "tasks_session_id_started_at_idx" ON "tasks"("session_id", "started_at");

-- CreateIndex
CREATE INDEX "tasks_status_host_idx" ON "tasks"("status", "host");

-- AddForeignKey
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;
