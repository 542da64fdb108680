import type { Clock } from '@relay/clock';
import type { McpTask as McpTaskMessage, McpTaskServiceServer, McpTaskServiceService } from '@relay/proto/relay/session/v1/mcp_task_service';
import { serveUnary, type Callers } from '@relay/rpc';
import type { Logger } from '@relay/telemetry';
import {
  cancelMcpTask,
  claimMcpTasks,
  createMcpTask,
  getMcpTask,
  MCP_TASK_STATUSES,
  updateMcpTask,
  type McpTask,
  type McpTaskDeps,
} from '../../app/mcp-tasks/mcp-tasks.ts';
import { invalidInput } from '../../domain/errors.ts';

type McpTaskServiceMethods = { [K in keyof McpTaskServiceServer as string extends K ? never : K]: McpTaskServiceServer[K] };

const GATEWAY = ['gateway'] as const;

/** Only the gateway runs and reads MCP clients' tasks. */
export const MCP_TASK_CALLERS = {
  createMcpTask: GATEWAY,
  updateMcpTask: GATEWAY,
  getMcpTask: GATEWAY,
  cancelMcpTask: GATEWAY,
  claimMcpTasks: GATEWAY,
} satisfies Callers<typeof McpTaskServiceService>;

/** The most tasks one claim takes over. */
const MOST_CLAIMED = 100;

/** relay.session.v1.McpTaskService: decode the request, run the use case, encode the answer. */
export function mcpTaskGrpc(deps: McpTaskDeps & { clock: Clock; logger: Logger }): ReturnType<typeof serveUnary> {
  const { clock } = deps;
  return serveUnary<McpTaskServiceMethods>(deps.logger, {
    createMcpTask: async ({ external: _fromTheSession, ...request }) => ({
      task: toMessage(await createMcpTask(deps, { ...request, leaseMs: Number(request.leaseMs) }, clock.now())),
    }),
    updateMcpTask: async (request) => {
      const status = MCP_TASK_STATUSES.find((one) => one === request.status);
      if (status === undefined) throw invalidInput(`status must be one of ${MCP_TASK_STATUSES.join(', ')}.`, { field: 'status' });
      return { task: toMessage(await updateMcpTask(deps, { ...request, status, leaseMs: Number(request.leaseMs) }, clock.now())) };
    },
    getMcpTask: async (request) => ({ task: toMessage(await getMcpTask(deps, request.id, request.sessionId)) }),
    cancelMcpTask: async (request) => ({ task: toMessage(await cancelMcpTask(deps, request.id, request.sessionId, clock.now())) }),
    claimMcpTasks: async (request) => {
      if (request.runnerId === '') throw invalidInput('runner_id is required.', { field: 'runner_id' });
      const limit = Math.min(Math.max(request.limit, 1), MOST_CLAIMED);
      const tasks = await claimMcpTasks(deps, request.runnerId, Number(request.leaseMs), limit, clock.now());
      return { tasks: tasks.map(toMessage) };
    },
  });
}

function toMessage(task: McpTask): McpTaskMessage {
  const { leaseExpiresAt: _lease, ...fields } = task;
  return fields;
}
