-- What a session a conversation started on a paired relay has spent there, as that relay last reported it in a
-- call's result (docs/adr/0039-tree-budgets.md): it counts in the conversation's tree.
CREATE TABLE "remote_tree_reports" (
    "relay" TEXT NOT NULL,
    "remote_session_id" TEXT NOT NULL,
    "session_id" TEXT NOT NULL,
    "rows" JSONB NOT NULL,
    "sessions_started" INTEGER NOT NULL,
    "reported_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "remote_tree_reports_pkey" PRIMARY KEY ("relay","remote_session_id")
);

CREATE INDEX "remote_tree_reports_session_id_idx" ON "remote_tree_reports"("session_id");
