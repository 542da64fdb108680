-- The W3C traceparent of the call or message that queued a turn: the turn's span links back to it.
ALTER TABLE "turns" ADD COLUMN "trace_parent" TEXT;
