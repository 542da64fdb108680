-- An external session's read marker: the messages.seq its agent has read through; later wake-ups,
-- answers and schedule firings written into the conversation are pending until it reads them.
ALTER TABLE "sessions" ADD COLUMN "external_read_seq" INTEGER NOT NULL DEFAULT 0;
