-- Task output moves from a file on the replica that ran the command into PostgreSQL (ADR 0010), and a
-- running task holds a lease so that any replica can fail it when its runner dies.

-- AlterTable
ALTER TABLE "tasks" DROP COLUMN "output_path",
ADD COLUMN "lease_until" TIMESTAMP(3),
ADD COLUMN "output_bytes" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN "output_dropped" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN "output_removed" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "task_output_chunks" (
    "task_id" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "data" BYTEA NOT NULL,
    "size" INTEGER NOT NULL,

    CONSTRAINT "task_output_chunks_pkey" PRIMARY KEY ("task_id","seq")
);

-- CreateIndex
CREATE INDEX "tasks_ended_at_idx" ON "tasks"("ended_at");

-- AddForeignKey
ALTER TABLE "task_output_chunks" ADD CONSTRAINT "task_output_chunks_task_id_fkey" FOREIGN KEY ("task_id") REFERENCES "tasks"("id") ON DELETE CASCADE ON UPDATE CASCADE;
