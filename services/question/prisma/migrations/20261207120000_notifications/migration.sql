-- Notifications (docs/adr/0031): each user's settings, their browsers' Web Push subscriptions, the relay's VAPID
-- key pair (made at the first start), and which targets an event already reached (a retry skips them).

-- CreateTable
CREATE TABLE "notification_settings" (
    "user_id" TEXT NOT NULL,
    "webhook_url" TEXT NOT NULL DEFAULT '',
    "cards" BOOLEAN NOT NULL DEFAULT true,
    "asks" BOOLEAN NOT NULL DEFAULT true,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "notification_settings_pkey" PRIMARY KEY ("user_id")
);

-- CreateTable
CREATE TABLE "push_subscriptions" (
    "endpoint" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "p256dh" TEXT NOT NULL,
    "auth" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "push_subscriptions_pkey" PRIMARY KEY ("endpoint")
);

-- CreateIndex
CREATE INDEX "push_subscriptions_user_id_idx" ON "push_subscriptions"("user_id");

-- CreateTable
CREATE TABLE "vapid_keys" (
    "id" INTEGER NOT NULL,
    "public_key" TEXT NOT NULL,
    "private_key" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "vapid_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "notification_sends" (
    "event_id" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "sent_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "notification_sends_pkey" PRIMARY KEY ("event_id","target")
);
