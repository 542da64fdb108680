-- An MCP task outlives the gateway replica that ran it (docs/adr/0042-mcp-tasks-taken-over.md): the row keeps the call,
-- its caller and the effects it made, and which replica runs it, so another replica claims it once that one's lease ran
-- out or it let the task go.
ALTER TABLE "mcp_tasks" ADD COLUMN "input_json" TEXT NOT NULL DEFAULT '';
ALTER TABLE "mcp_tasks" ADD COLUMN "user_id" TEXT NOT NULL DEFAULT '';
ALTER TABLE "mcp_tasks" ADD COLUMN "external" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "mcp_tasks" ADD COLUMN "progress_json" TEXT NOT NULL DEFAULT '';
ALTER TABLE "mcp_tasks" ADD COLUMN "runner_id" TEXT NOT NULL DEFAULT '';

CREATE INDEX "mcp_tasks_status_lease_expires_at_idx" ON "mcp_tasks"("status", "lease_expires_at");
