-- Every batch of events reads the sessions index to match them, and subscriptions are made seldom: each new entry goes
-- straight into the index. With GIN's pending list (its default) a search also read every entry added since the last
-- vacuum one by one, and the planner, seeing that, matched by user instead: every subscription of the user tested
-- with `sessions @> …` once per session of the batch (half of PostgreSQL's CPU in the pipeline benchmark).
ALTER INDEX "subscriptions_sessions_idx" SET (fastupdate = off);
SELECT gin_clean_pending_list('subscriptions_sessions_idx');
