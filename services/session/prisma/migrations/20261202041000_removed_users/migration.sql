-- A removed user stays (their archived sessions still name them) but is no longer listed and has no tokens.
ALTER TABLE "users" ADD COLUMN "removed_at" TIMESTAMP(3);
