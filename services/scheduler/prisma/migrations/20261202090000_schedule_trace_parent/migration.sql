-- The W3C traceparent of the call that set a schedule: each firing's span links to it.
ALTER TABLE "schedules" ADD COLUMN "trace_parent" TEXT;
