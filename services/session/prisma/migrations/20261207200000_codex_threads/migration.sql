-- A Codex session's thread and its rollout (Codex's own record of the thread, the file it resumes it from), kept
-- between turns so the next turn, on any replica, resumes the thread (issue 41). Additive: the previous release's code
-- never reads it.
CREATE TABLE "codex_threads" (
    "session_id" TEXT NOT NULL,
    "thread_id" TEXT NOT NULL,
    "rollout_path" TEXT NOT NULL,
    "rollout" BYTEA NOT NULL,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "codex_threads_pkey" PRIMARY KEY ("session_id")
);
