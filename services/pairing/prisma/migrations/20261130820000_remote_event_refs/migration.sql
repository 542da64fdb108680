-- AlterTable
ALTER TABLE "remote_watch_events" ADD COLUMN     "ref_id" TEXT NOT NULL DEFAULT '';
