-- A session's ask mark replaces asked_about: 0 when no ask can be pending about the session, else a value from
-- session_ask_marks, new at every NoteAskAbout, so that ClearAskMark takes off only the mark a reader saw (a mark
-- given since, for an ask being kept, stays). Sessions marked before keep a mark.
CREATE SEQUENCE "session_ask_marks" AS INTEGER CYCLE;
ALTER TABLE "sessions" ADD COLUMN "ask_mark" INTEGER NOT NULL DEFAULT 0;
UPDATE "sessions" SET "ask_mark" = nextval('session_ask_marks') WHERE "asked_about";
ALTER TABLE "sessions" DROP COLUMN "asked_about";
