-- CreateEnum
CREATE TYPE "user_role" AS ENUM ('admin', 'member');

-- AlterTable
ALTER TABLE "users" ADD COLUMN     "role" "user_role" NOT NULL DEFAULT 'member';

-- A relay that already has users: the earliest-created one becomes its admin, the rest stay members.
UPDATE "users" SET "role" = 'admin' WHERE "id" = (SELECT "id" FROM "users" ORDER BY "created_at", "id" LIMIT 1);
