-- The grid time of a due firing that has not gone yet (held for approval, or waiting for the loop guard to answer):
-- next_fire_at then says when the firing loop looks again, and the firing keeps its own grid time. Rows held before
-- this column stay null and fire for their next_fire_at as before.
ALTER TABLE "schedules" ADD COLUMN "pending_fire_at" TIMESTAMP(3);
