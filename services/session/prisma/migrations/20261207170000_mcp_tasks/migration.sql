-- The tasks of MCP's Tasks extension (docs/adr/0036-mcp-2026.md): a relay_tool call run as a task, its status written
-- by the gateway replica running it under a lease, read by any replica's tasks/get.
CREATE TABLE "mcp_tasks" (
    "id" TEXT NOT NULL,
    "session_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "status_message" TEXT NOT NULL DEFAULT '',
    "result_json" TEXT NOT NULL DEFAULT '',
    "card_id" TEXT NOT NULL DEFAULT '',
    "lease_expires_at" TIMESTAMP(3) NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "mcp_tasks_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "mcp_tasks_session_id_idx" ON "mcp_tasks"("session_id");
