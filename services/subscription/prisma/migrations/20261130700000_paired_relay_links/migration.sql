-- A subscription to a paired relay: whether its link answers, since when, and how many replayed events came
-- since it was lost (the link_restored line says so).
ALTER TABLE "subscriptions" ADD COLUMN "link_online" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN "link_changed_at" TIMESTAMP(3),
ADD COLUMN "replayed_pending" INTEGER NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "subscriptions_relay_ended_at_idx" ON "subscriptions"("relay", "ended_at");
