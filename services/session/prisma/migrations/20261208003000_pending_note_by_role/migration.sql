-- The pending note of an external session counts its messages of the pending roles past its read marker (issue 46).
-- With only (session_id, seq) to read them by, the planner costed that at a third of the session's messages whatever
-- their roles, and where one conversation held most of the relay's messages it chose a scan of every message: on a
-- relay whose 10,000 messages were all one conversation's, each listing and reading spent 5-12 ms scanning them
-- twice to find none. The role in the index lets the plan count only the pending roles' messages past the marker,
-- which the statistics show are few. Safe for the previous release: it reads the same rows either way.
CREATE INDEX "messages_session_id_role_seq_idx" ON "messages"("session_id", "role", "seq");
