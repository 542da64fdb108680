import { ENDED_MCP_TASK_STATUSES, MCP_TASK_STATUSES, type McpTask, type McpTaskStatus, type McpTaskStore } from '../../app/mcp-tasks/mcp-tasks.ts';
import type { PrismaClient } from '../../generated/prisma/client.ts';

/** MCP clients' tasks in the session service's database (mcp_tasks), through Prisma. */
export class PrismaMcpTaskStore implements McpTaskStore {
  constructor(private readonly prisma: PrismaClient) {}

  async create(task: McpTask): Promise<void> {
    await this.prisma.mcpTask.create({ data: task });
  }

  async find(id: string, sessionId: string): Promise<McpTask | undefined> {
    const row = await this.prisma.mcpTask.findFirst({ where: { id, sessionId } });
    return row === null ? undefined : { ...row, status: statusOf(row.status) };
  }

  async updateUnlessEnded(task: McpTask, runnerId?: string): Promise<McpTask | undefined> {
    const { id, sessionId, createdAt: _createdAt, ...fields } = task;
    const { count } = await this.prisma.mcpTask.updateMany({
      where: { id, sessionId, status: { notIn: [...ENDED_MCP_TASK_STATUSES] }, ...(runnerId === undefined ? {} : { runnerId }) },
      data: fields,
    });
    return count === 0 ? this.find(id, sessionId) : task;
  }

  async claimExpired(runnerId: string, now: Date, leaseExpiresAt: Date, limit: number): Promise<McpTask[]> {
    // One statement: the rows are locked as they are picked, and those another replica is claiming are passed over.
    // timestamp(3) columns hold UTC, so instants travel as ISO text cast to timestamp.
    const rows = await this.prisma.$queryRaw<{ id: string }[]>`
      UPDATE mcp_tasks SET runner_id = ${runnerId}, lease_expires_at = ${leaseExpiresAt.toISOString()}::timestamp(3),
                           updated_at = ${now.toISOString()}::timestamp(3)
      WHERE id IN (
        SELECT id FROM mcp_tasks
        WHERE status IN ('working', 'input_required') AND lease_expires_at <= ${now.toISOString()}::timestamp(3)
        ORDER BY lease_expires_at
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED
      )
      RETURNING id`;
    if (rows.length === 0) return [];
    const claimed = await this.prisma.mcpTask.findMany({ where: { id: { in: rows.map((row) => row.id) }, runnerId } });
    return claimed.map((row) => ({ ...row, status: statusOf(row.status) }));
  }
}

function statusOf(value: string): McpTaskStatus {
  const status = MCP_TASK_STATUSES.find((one) => one === value);
  if (status === undefined) throw new Error(`mcp_tasks holds an unknown status ${value}`);
  return status;
}
