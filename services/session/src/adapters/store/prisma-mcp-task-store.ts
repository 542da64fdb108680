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

  async updateUnlessEnded(task: McpTask): Promise<McpTask | undefined> {
    const { id, sessionId, createdAt: _createdAt, ...fields } = task;
    const { count } = await this.prisma.mcpTask.updateMany({ where: { id, sessionId, status: { notIn: [...ENDED_MCP_TASK_STATUSES] } }, data: fields });
    return count === 0 ? this.find(id, sessionId) : task;
  }
}

function statusOf(value: string): McpTaskStatus {
  const status = MCP_TASK_STATUSES.find((one) => one === value);
  if (status === undefined) throw new Error(`mcp_tasks holds an unknown status ${value}`);
  return status;
}
