-- Where a running or waiting turn's provider can pick it up (the script's next step, a card it waits on): written by
-- the replica that runs the turn, read by the replica the turn is handed to when that one stops (docs/adr/0034).
ALTER TABLE "turns" ADD COLUMN "resume_point" JSONB;
