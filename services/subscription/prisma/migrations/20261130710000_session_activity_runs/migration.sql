-- What runs in a session (its turn, its tasks, when each last showed activity, when the last one ended), as the
-- session events told it: the inputs of stalled, all_idle and the heartbeat. archived_at takes an archived session
-- out of a subscription to all sessions.
ALTER TABLE "session_activity" ADD COLUMN "runs" JSONB NOT NULL DEFAULT '{}',
ADD COLUMN "archived_at" TIMESTAMP(3);

-- CreateIndex
CREATE INDEX "session_activity_user_id_idx" ON "session_activity"("user_id");
