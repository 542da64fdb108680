-- CreateTable
CREATE TABLE "conversation_unlocks" (
    "session_id" TEXT NOT NULL,
    "relay" TEXT NOT NULL,
    "by_mention" BOOLEAN NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "conversation_unlocks_pkey" PRIMARY KEY ("session_id","relay")
);

-- AddForeignKey
ALTER TABLE "conversation_unlocks" ADD CONSTRAINT "conversation_unlocks_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;
