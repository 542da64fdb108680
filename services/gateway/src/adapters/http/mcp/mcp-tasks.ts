/**
 * MCP's Tasks extension (io.modelcontextprotocol/tasks, 2026-07-28) for relay_tool's calls that may hold: a client that
 * declares it gets every such call (`send`, `create_session`, `wait`, an action a card gates, a call to a paired relay)
 * as a task, so no response of its is held. The call answers at once with the task; a gateway replica runs the call
 * (mcp-task-runner.ts: this one, or another once this one stops) and writes the task's status to the session service as
 * it goes (McpTaskService, Postgres), so the client's tasks/get, tasks/update and tasks/cancel are answered by any
 * replica: working until the reply, input_required while a card waits for the person (with the card's page as a URL
 * request), then completed with the result the call would have given, or cancelled (docs/adr/0036-mcp-2026.md,
 * docs/adr/0042-mcp-tasks-taken-over.md).
 */
import { inputRequired, ProtocolError, ProtocolErrorCode, type Server } from '@modelcontextprotocol/server';
import { isAppError } from '@relay/errors';
import { z } from 'zod';
import type { McpTask } from '@relay/proto/relay/session/v1/mcp_task_service';
import type { CallChannel } from '../../../app/relay-tool/dispatch.ts';
import type { McpTaskClient } from '../../../app/ports.ts';
import type { Caller } from '../../../domain/caller.ts';
import { cardUrl } from '../../../app/views/turn-result.ts';
import { namesThisRelay } from '../../../domain/relay-name.ts';
import { READS } from '../../../domain/why-not-made-again.ts';
import type { McpDeps } from './create-mcp-server.ts';
import type { McpTaskRunner } from './mcp-task-runner.ts';

/** The extension's identifier, as clients and servers declare it in their capabilities. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/**
 * The actions that never hold their call on this relay: they raise no card and wait for nothing, so a client of the
 * extension gets their result at once: the reads, and the two writes that need no card. Every other call (a wait, an
 * action a card may gate, a call to a paired relay, an action named wrong) runs as a task.
 */
const ANSWERED_AT_ONCE: ReadonlySet<string> = new Set([...[...READS].filter((action) => action !== 'wait'), 'unsubscribe', 'withdraw']);

/** How often the client is asked to poll tasks/get. */
const POLL_INTERVAL_MS = 1_000;

/** Whether a relay_tool call with these arguments may hold, so runs as a task for a client of the extension. */
export function runsAsTask(input: unknown, relayName: string): boolean {
  const { action, relay } = typeof input === 'object' && input !== null ? (input as { action?: unknown; relay?: unknown }) : {};
  return !(typeof action === 'string' && ANSWERED_AT_ONCE.has(action) && namesThisRelay(relay, relayName));
}

/**
 * Starts relay_tool's call `input` as a task of `caller`'s session and answers the task (working) at once; the call
 * goes on on this replica (`tasks`), or on another that takes it over once this one stops (mcp-task-runner.ts).
 */
export async function startTask(
  input: unknown,
  caller: Caller & { sessionId: string },
  tasks: McpTaskRunner,
  publicUrl: string,
  channel: Pick<CallChannel, 'traceparent'>,
): Promise<Record<string, unknown>> {
  const task = await tasks.start(input, caller, channel);
  // The SDK checks every tools/call result as a CallToolResult, which has content: an empty one passes the check.
  return { resultType: 'task', task: taskView(task, publicUrl), content: [] };
}

const TASK_PARAMS = { params: z.looseObject({ taskId: z.string() }) };

/**
 * Answers the extension's requests on `server` for the tasks of `caller`'s session only, from the session service (any
 * replica's): another session's task is no task of this one. tasks/get shows a task; tasks/cancel ends one still at
 * work, stopping its call (at once when this replica runs it); tasks/update takes a client's answers to a task's
 * input requests and reads none of them, since the only one we make is a card's page, which the person decides in the
 * console. The extension defines no tasks/list.
 */
export function serveTasks(server: Server, caller: Caller & { sessionId: string }, deps: McpDeps & { mcpTasks: McpTaskClient }, tasks: McpTaskRunner): void {
  const { sessionId } = caller;
  server.setRequestHandler('tasks/get', TASK_PARAMS, async ({ taskId }) =>
    taskView(await ownTask(taskId, () => deps.mcpTasks.getMcpTask({ id: taskId, sessionId })), deps.publicUrl),
  );
  server.setRequestHandler('tasks/cancel', TASK_PARAMS, async ({ taskId }) => {
    await ownTask(taskId, () => deps.mcpTasks.cancelMcpTask({ id: taskId, sessionId }));
    tasks.cancel(sessionId, taskId);
    return {};
  });
  server.setRequestHandler('tasks/update', TASK_PARAMS, async ({ taskId }) => {
    await ownTask(taskId, () => deps.mcpTasks.getMcpTask({ id: taskId, sessionId }));
    return {};
  });
}

/** The task a request of the session service answers, NOT_FOUND said as the extension's invalid params. */
async function ownTask(taskId: string, request: () => Promise<{ task?: McpTask | undefined }>): Promise<McpTask> {
  const { task } = await request().catch((error: unknown) => {
    if (isAppError(error) && error.kind === 'not_found') throw new ProtocolError(ProtocolErrorCode.InvalidParams, `No task ${taskId} of this session.`);
    throw error;
  });
  if (task === undefined) throw new Error('The session service answered no task');
  return task;
}

/**
 * A task as the extension shows it: its id, status and times, the poll interval; the result once completed; the
 * card's page as a URL request while a card waits. Whatever a client answers to that request is never the decision:
 * the person decides in the console, and the task goes on by itself.
 */
function taskView(task: McpTask, publicUrl: string): Record<string, unknown> {
  return {
    taskId: task.id,
    status: task.status,
    ...(task.statusMessage === '' ? {} : { statusMessage: task.statusMessage }),
    createdAt: task.createdAt?.toISOString(),
    lastUpdatedAt: task.updatedAt?.toISOString(),
    pollIntervalMs: POLL_INTERVAL_MS,
    ...(task.status === 'completed' ? { result: JSON.parse(task.resultJson) as unknown } : {}),
    ...(task.status === 'input_required' && task.cardId !== ''
      ? {
          inputRequests: {
            [`card-${task.cardId}`]: inputRequired.elicitUrl({
              message: `The relay's owner must decide card ${task.cardId} before this task goes on. Open the card and decide it there.`,
              url: cardUrl(publicUrl, task.cardId),
            }),
          },
        }
      : {}),
  };
}
