-- Budgets over delegation trees (docs/adr/0039-tree-budgets.md): one per conversation; the turns of a session are held
-- while its own or an ancestor's budget is reached or ended, or its minutes have run out.
CREATE TABLE "budgets" (
    "session_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "set_by" TEXT NOT NULL,
    "cost_usd" DOUBLE PRECISION,
    "tokens" INTEGER,
    "minutes" INTEGER,
    "sessions" INTEGER,
    "started_at" TIMESTAMP(3) NOT NULL,
    "state" TEXT NOT NULL,
    "warned" BOOLEAN NOT NULL DEFAULT false,
    "card_id" TEXT,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "budgets_pkey" PRIMARY KEY ("session_id")
);

CREATE INDEX "budgets_card_id_idx" ON "budgets"("card_id");

-- A tree is walked from a conversation down through the sessions it started.
CREATE INDEX "sessions_started_by_session_id_idx" ON "sessions"("started_by_session_id");

-- A tree's spend is summed over its sessions' turns.
CREATE INDEX "turn_usage_session_id_idx" ON "turn_usage"("session_id");
