-- CreateTable
CREATE TABLE "asks" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "asking_session_id" TEXT NOT NULL,
    "about_session_id" TEXT NOT NULL,
    "question" TEXT NOT NULL,
    "options" JSONB NOT NULL DEFAULT '[]',
    "recommendation" TEXT NOT NULL DEFAULT '',
    "detail" TEXT NOT NULL DEFAULT '',
    "status" TEXT NOT NULL DEFAULT 'pending',
    "answer" TEXT NOT NULL DEFAULT '',
    "choice" TEXT NOT NULL DEFAULT '',
    "via" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMP(3) NOT NULL,
    "ended_at" TIMESTAMP(3),

    CONSTRAINT "asks_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "asks_user_id_status_idx" ON "asks"("user_id", "status");

-- CreateIndex
CREATE INDEX "asks_asking_session_id_status_idx" ON "asks"("asking_session_id", "status");

-- CreateIndex
CREATE INDEX "asks_about_session_id_status_idx" ON "asks"("about_session_id", "status");
