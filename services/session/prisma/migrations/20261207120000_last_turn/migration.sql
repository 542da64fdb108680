-- A session's last turn, as list_sessions and read_session read it with each session: the turn that ended most
-- recently (a person reads "failed: …" or "stopped" off it until the next turn runs).
CREATE INDEX "turns_session_id_ended_at_idx" ON "turns"("session_id", "ended_at");
