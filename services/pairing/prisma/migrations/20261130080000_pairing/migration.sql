-- Pairing proper: tokens both ways, the owner, link state; the accept-prompts switch becomes relay-wide.
DELETE FROM "paired_relays";

ALTER TABLE "paired_relays" DROP COLUMN "accept_prompts",
    ADD COLUMN "owner_user_id" TEXT NOT NULL,
    ADD COLUMN "inbound_token_hash" TEXT NOT NULL,
    ADD COLUMN "outbound_token" TEXT NOT NULL,
    ADD COLUMN "version" TEXT NOT NULL DEFAULT '',
    ADD COLUMN "online" BOOLEAN NOT NULL DEFAULT true,
    ADD COLUMN "last_contact_at" TIMESTAMP(3);

-- CreateIndex
CREATE UNIQUE INDEX "paired_relays_inbound_token_hash_key" ON "paired_relays"("inbound_token_hash");

-- CreateTable
CREATE TABLE "pairing_codes" (
    "code_hash" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "used_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "pairing_codes_pkey" PRIMARY KEY ("code_hash")
);

-- CreateTable
CREATE TABLE "pairing_settings" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "accept_prompts" BOOLEAN NOT NULL DEFAULT true,

    CONSTRAINT "pairing_settings_pkey" PRIMARY KEY ("id")
);
