-- An external session's card is keyed by its call, so the same call made again picks up its decision.
ALTER TABLE "cards" ADD COLUMN "call_key" TEXT NOT NULL DEFAULT '',
ADD COLUMN "used_at" TIMESTAMP(3);

-- CreateIndex
CREATE INDEX "cards_session_id_call_key_idx" ON "cards"("session_id", "call_key");
