-- Two lookups of the reads every agent's call makes (issue 46). A listing shows each grouped session's group head, and
-- relay_info each group's members: without an index on the group each look scanned every session of the relay. The
-- pending note of an external session counts its messages past its read marker: the index on (session_id,
-- created_at) left the planner a scan of every message of the relay whenever a few conversations held most of them
-- (8 ms at 10,000 messages, on every call), where this one reads the unread messages only. The listing's estimate of
-- those scans is also what pushed its statement past the cost at which PostgreSQL compiles it with JIT. Safe for the
-- previous release: it reads the same rows either way.
CREATE INDEX "sessions_group_id_idx" ON "sessions"("group_id");

CREATE INDEX "messages_session_id_seq_idx" ON "messages"("session_id", "seq");
