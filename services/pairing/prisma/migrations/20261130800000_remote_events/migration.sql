-- CreateTable
CREATE TABLE "remote_watches" (
    "relay" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "sessions" JSONB NOT NULL DEFAULT '[]',
    "exclude" JSONB NOT NULL DEFAULT '[]',
    "events" JSONB NOT NULL DEFAULT '[]',
    "stalled_minutes" INTEGER NOT NULL DEFAULT 0,
    "heartbeat_minutes" INTEGER NOT NULL DEFAULT 0,
    "last_seq" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "remote_watches_pkey" PRIMARY KEY ("relay","id")
);

-- CreateTable
CREATE TABLE "remote_watch_events" (
    "relay" TEXT NOT NULL,
    "watch_id" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "event_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "session_id" TEXT NOT NULL,
    "text" TEXT NOT NULL DEFAULT '',
    "status" TEXT NOT NULL DEFAULT '',
    "occurred_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "remote_watch_events_pkey" PRIMARY KEY ("relay","watch_id","seq")
);

-- CreateTable
CREATE TABLE "remote_subscriptions" (
    "subscription_id" TEXT NOT NULL,
    "relay" TEXT NOT NULL,
    "cursor" INTEGER NOT NULL DEFAULT 0,
    "online" BOOLEAN NOT NULL DEFAULT true,
    "next_fetch_at" TIMESTAMP(3) NOT NULL,
    "lease_until" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "remote_subscriptions_pkey" PRIMARY KEY ("subscription_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "remote_watch_events_relay_watch_id_event_id_key" ON "remote_watch_events"("relay", "watch_id", "event_id");

-- CreateIndex
CREATE INDEX "remote_subscriptions_next_fetch_at_idx" ON "remote_subscriptions"("next_fetch_at");

-- CreateIndex
CREATE INDEX "remote_subscriptions_relay_idx" ON "remote_subscriptions"("relay");

-- AddForeignKey
ALTER TABLE "remote_watch_events" ADD CONSTRAINT "remote_watch_events_relay_watch_id_fkey" FOREIGN KEY ("relay", "watch_id") REFERENCES "remote_watches"("relay", "id") ON DELETE CASCADE ON UPDATE CASCADE;
