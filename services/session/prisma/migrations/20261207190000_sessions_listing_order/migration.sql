-- list_sessions through relay_tool reads a page of a user's sessions (issue 46): the most recently active first, ties
-- by newest creation, then id. This index holds them in that order, so a page is the index's first rows (and a later
-- page skips index entries only) where the index it replaces left every session of the user to sort. Safe for the
-- previous release: its listing reads the same rows either way.
DROP INDEX "sessions_user_id_last_activity_at_idx";

CREATE INDEX "sessions_user_id_last_activity_at_created_at_id_idx" ON "sessions"("user_id", "last_activity_at" DESC, "created_at" DESC, "id");
