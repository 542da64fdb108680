-- CreateTable
CREATE TABLE "loop_guards" (
    "session_id" TEXT NOT NULL,
    "sent" INTEGER NOT NULL DEFAULT 0,
    "allowed" INTEGER NOT NULL DEFAULT 30,
    "user_seq" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "loop_guards_pkey" PRIMARY KEY ("session_id")
);

-- AddForeignKey
ALTER TABLE "loop_guards" ADD CONSTRAINT "loop_guards_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;
