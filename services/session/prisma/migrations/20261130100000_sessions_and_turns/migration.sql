-- AlterTable
ALTER TABLE "sessions" ADD COLUMN     "effort" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "mode" TEXT NOT NULL DEFAULT 'agent',
ADD COLUMN     "repo" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "branch" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "group_id" TEXT,
ADD COLUMN     "group_role" TEXT,
ADD COLUMN     "started_by_session_id" TEXT,
ADD COLUMN     "may_create_sessions" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "auto_compact_window" TEXT NOT NULL DEFAULT 'auto',
ADD COLUMN     "thinking_enabled" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "thinking_display" TEXT NOT NULL DEFAULT 'summarized',
ADD COLUMN     "worker_started" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "groups" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "name" TEXT,
    "made_by" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL,
    "last_activity_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "groups_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "messages" (
    "id" TEXT NOT NULL,
    "session_id" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "provenance" JSONB,
    "model" TEXT NOT NULL DEFAULT '',
    "sender_session_id" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "messages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "turns" (
    "id" TEXT NOT NULL,
    "session_id" TEXT NOT NULL,
    "message_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "provenance" JSONB,
    "sender_session_id" TEXT,
    "reply_text" TEXT NOT NULL DEFAULT '',
    "reply_model" TEXT NOT NULL DEFAULT '',
    "error" TEXT NOT NULL DEFAULT '',
    "in_flight" TEXT NOT NULL DEFAULT '',
    "pending_questions" JSONB NOT NULL DEFAULT '[]',
    "runner_id" TEXT,
    "lease_until" TIMESTAMP(3),
    "stop_requested" BOOLEAN NOT NULL DEFAULT false,
    "queued_at" TIMESTAMP(3) NOT NULL,
    "started_at" TIMESTAMP(3),
    "ended_at" TIMESTAMP(3),

    CONSTRAINT "turns_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "conversation_grants" (
    "session_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "relay" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "conversation_grants_pkey" PRIMARY KEY ("session_id","kind","relay")
);

-- CreateIndex
CREATE INDEX "groups_user_id_last_activity_at_idx" ON "groups"("user_id", "last_activity_at");

-- CreateIndex
CREATE INDEX "messages_session_id_created_at_idx" ON "messages"("session_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "turns_message_id_key" ON "turns"("message_id");

-- CreateIndex
CREATE INDEX "turns_status_queued_at_idx" ON "turns"("status", "queued_at");

-- CreateIndex
CREATE INDEX "turns_session_id_status_idx" ON "turns"("session_id", "status");

-- AddForeignKey
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_group_id_fkey" FOREIGN KEY ("group_id") REFERENCES "groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "groups" ADD CONSTRAINT "groups_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "messages" ADD CONSTRAINT "messages_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "turns" ADD CONSTRAINT "turns_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "turns" ADD CONSTRAINT "turns_message_id_fkey" FOREIGN KEY ("message_id") REFERENCES "messages"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "conversation_grants" ADD CONSTRAINT "conversation_grants_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;
