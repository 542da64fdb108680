-- AlterTable
ALTER TABLE "messages" ADD COLUMN     "seq" SERIAL NOT NULL;
