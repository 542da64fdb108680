-- One-time console sign-in links (only the sha256 of each), and the expiry of the token redeeming one makes.
CREATE TABLE "sign_in_links" (
    "link_hash" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL,
    "expires_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "sign_in_links_pkey" PRIMARY KEY ("link_hash")
);

CREATE INDEX "sign_in_links_expires_at_idx" ON "sign_in_links"("expires_at");

ALTER TABLE "sign_in_links" ADD CONSTRAINT "sign_in_links_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

ALTER TABLE "api_tokens" ADD COLUMN "expires_at" TIMESTAMP(3);
