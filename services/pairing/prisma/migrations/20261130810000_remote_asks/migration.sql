-- CreateTable
CREATE TABLE "remote_asks" (
    "relay" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "asking_session_id" TEXT NOT NULL,
    "online" BOOLEAN NOT NULL DEFAULT true,
    "next_poll_at" TIMESTAMP(3) NOT NULL,
    "lease_until" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "remote_asks_pkey" PRIMARY KEY ("relay","id")
);

-- CreateIndex
CREATE INDEX "remote_asks_next_poll_at_idx" ON "remote_asks"("next_poll_at");
