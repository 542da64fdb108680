-- Matching an event to subscriptions without reading every subscription of its user: those to all sessions by
-- user and scope, and the lists that name the session through `sessions @> '[{"id": …}]'`.
CREATE INDEX "subscriptions_user_id_scope_ended_at_idx" ON "subscriptions"("user_id", "scope", "ended_at");
CREATE INDEX "subscriptions_sessions_idx" ON "subscriptions" USING GIN ("sessions" jsonb_path_ops);
