-- An external session's relay_tool calls in flight: the session shows as running_turn while one's hold lasts.
CREATE TABLE "external_calls" (
    "session_id" TEXT NOT NULL,
    "call_id" TEXT NOT NULL,
    "expires_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "external_calls_pkey" PRIMARY KEY ("session_id","call_id")
);

ALTER TABLE "external_calls" ADD CONSTRAINT "external_calls_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;
