-- The W3C traceparent of the message or call an event came in with: the span of the wake-up that delivers it links to it.
ALTER TABLE "watcher_events" ADD COLUMN "trace_parent" TEXT;
