-- Whether an ask (kept by the question service) was ever about the session: the gateway notes it before each ask, so a
-- session never asked about has none pending and read_session need not ask the question service. Sessions from before
-- this column may have asks: they read true; new ones start false.
ALTER TABLE "sessions" ADD COLUMN "asked_about" BOOLEAN NOT NULL DEFAULT true;
ALTER TABLE "sessions" ALTER COLUMN "asked_about" SET DEFAULT false;
