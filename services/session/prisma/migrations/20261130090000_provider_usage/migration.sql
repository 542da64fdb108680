-- The relay's own accounting of provider usage, usage-limit pauses, and Claude sessions' resume state.
-- No foreign keys: these tables stand alone, so this migration may run in any order relative to the others.

-- CreateTable
CREATE TABLE "turn_usage" (
    "message_id" TEXT NOT NULL,
    "session_id" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "input_tokens" INTEGER NOT NULL,
    "output_tokens" INTEGER NOT NULL,
    "cost_usd" DOUBLE PRECISION,
    "recorded_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "turn_usage_pkey" PRIMARY KEY ("message_id")
);

-- CreateTable
CREATE TABLE "provider_pauses" (
    "provider" TEXT NOT NULL,
    "until" TIMESTAMP(3) NOT NULL,
    "reason" TEXT NOT NULL,

    CONSTRAINT "provider_pauses_pkey" PRIMARY KEY ("provider")
);

-- CreateTable
CREATE TABLE "claude_session_states" (
    "session_id" TEXT NOT NULL,
    "resume_id" TEXT NOT NULL,
    "cost_usd_total" DOUBLE PRECISION NOT NULL,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "claude_session_states_pkey" PRIMARY KEY ("session_id")
);

-- CreateIndex
CREATE INDEX "turn_usage_provider_recorded_at_idx" ON "turn_usage"("provider", "recorded_at");
