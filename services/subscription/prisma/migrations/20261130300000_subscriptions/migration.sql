-- CreateTable
CREATE TABLE "subscriptions" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "watcher_session_id" TEXT NOT NULL,
    "relay" TEXT NOT NULL DEFAULT '',
    "scope" TEXT NOT NULL,
    "sessions" JSONB NOT NULL DEFAULT '[]',
    "exclude" JSONB NOT NULL DEFAULT '[]',
    "events" JSONB NOT NULL,
    "once" BOOLEAN NOT NULL DEFAULT false,
    "match" TEXT NOT NULL DEFAULT '',
    "stalled_minutes" INTEGER NOT NULL DEFAULT 15,
    "heartbeat_minutes" INTEGER,
    "digest_minutes" INTEGER,
    "quiet_hours" JSONB,
    "created_at" TIMESTAMP(3) NOT NULL,
    "last_delivered_at" TIMESTAMP(3),
    "ended_at" TIMESTAMP(3),
    "end_reason" TEXT,

    CONSTRAINT "subscriptions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "watchers" (
    "session_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "state" JSONB NOT NULL,
    "seq" INTEGER NOT NULL DEFAULT 0,
    "next_evaluation_at" TIMESTAMP(3),

    CONSTRAINT "watchers_pkey" PRIMARY KEY ("session_id")
);

-- CreateTable
CREATE TABLE "watcher_events" (
    "id" TEXT NOT NULL,
    "watcher_session_id" TEXT NOT NULL,
    "source_event_id" TEXT NOT NULL,
    "event" JSONB NOT NULL,
    "subscription_ids" JSONB NOT NULL,
    "status" TEXT NOT NULL,
    "release_at" TIMESTAMP(3),
    "deliver_at" TIMESTAMP(3),
    "held_by" JSONB,
    "cap_digest" BOOLEAN NOT NULL DEFAULT false,
    "wakeup_id" TEXT,
    "received_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "watcher_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "subscriptions_watcher_session_id_ended_at_idx" ON "subscriptions"("watcher_session_id", "ended_at");

-- CreateIndex
CREATE INDEX "subscriptions_user_id_ended_at_idx" ON "subscriptions"("user_id", "ended_at");

-- CreateIndex
CREATE INDEX "watchers_next_evaluation_at_idx" ON "watchers"("next_evaluation_at");

-- CreateIndex
CREATE INDEX "watcher_events_watcher_session_id_status_idx" ON "watcher_events"("watcher_session_id", "status");

-- CreateIndex
CREATE UNIQUE INDEX "watcher_events_watcher_session_id_source_event_id_key" ON "watcher_events"("watcher_session_id", "source_event_id");

-- AddForeignKey
ALTER TABLE "watcher_events" ADD CONSTRAINT "watcher_events_watcher_session_id_fkey" FOREIGN KEY ("watcher_session_id") REFERENCES "watchers"("session_id") ON DELETE CASCADE ON UPDATE CASCADE;
