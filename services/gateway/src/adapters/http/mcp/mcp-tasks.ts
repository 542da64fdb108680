/**
 * MCP's Tasks extension (io.modelcontextprotocol/tasks, 2026-07-28) for relay_tool's long calls: a client that declares
 * it gets `send`, `create_session` and `wait` as tasks. The call answers at once with the task; this replica runs the
 * call and writes the task's status to the session service as it goes (McpTaskService, Postgres), so the client's
 * tasks/get is answered by any replica: working until the reply, input_required while a card waits for the person
 * (with the card's page as a URL request), then completed with the result the call would have given. Each write
 * renews the task's lease; a task whose replica stopped reads as failed once its lease has run out
 * (docs/adr/0036-mcp-2026.md).
 */
import { inputRequired, ProtocolError, ProtocolErrorCode, type Server } from '@modelcontextprotocol/server';
import { SystemClock, type Timer } from '@relay/clock';
import { isAppError } from '@relay/errors';
import { z } from 'zod';
import type { McpTask } from '@relay/proto/relay/session/v1/mcp_task_service';
import { dispatchToolCall, type CallChannel } from '../../../app/relay-tool/dispatch.ts';
import type { McpTaskClient } from '../../../app/ports.ts';
import type { Caller } from '../../../domain/caller.ts';
import { cardUrl } from '../../../app/views/turn-result.ts';
import { toCallToolResult } from './call-tool-result.ts';
import type { McpDeps } from './create-mcp-server.ts';

/** The extension's identifier, as clients and servers declare it in their capabilities. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** The actions that wait on a turn or the person, which a client of the extension gets as tasks. */
const TASK_ACTIONS: ReadonlySet<string> = new Set(['send', 'create_session', 'wait']);

/** How long a task stays held without a write from its replica, and how often the replica renews it (relay clock). */
const LEASE_MS = 60_000;
const RENEW_MS = 20_000;

/** How often the client is asked to poll tasks/get. */
const POLL_INTERVAL_MS = 1_000;

/** A caller's call that never ends early: a task outlives the request that started it. */
const NEVER = new AbortController().signal;

/** Whether a relay_tool call with these arguments runs as a task for a client of the extension. */
export function runsAsTask(input: unknown): boolean {
  const action = typeof input === 'object' && input !== null ? (input as { action?: unknown }).action : undefined;
  return typeof action === 'string' && TASK_ACTIONS.has(action);
}

/**
 * Starts relay_tool's call `input` as a task of `caller`'s session and answers the task (working) at once; the call
 * goes on here, its status written as it changes.
 */
export async function startTask(
  input: unknown,
  caller: Caller & { sessionId: string },
  deps: McpDeps & { mcpTasks: McpTaskClient },
  channel: Pick<CallChannel, 'traceparent'>,
): Promise<Record<string, unknown>> {
  const { sessionId } = caller;
  const { task } = await deps.mcpTasks.createMcpTask({ sessionId, leaseMs: String(LEASE_MS) });
  if (task === undefined) throw new Error('CreateMcpTask answered no task');
  const state = { status: 'working', statusMessage: '', resultJson: '', cardId: '' };
  // One write at a time, in order: the last one written is the last state.
  let writing: Promise<unknown> = Promise.resolve();
  const write = () => {
    const fields = { ...state };
    writing = writing
      .then(() => deps.mcpTasks.updateMcpTask({ id: task.id, sessionId, ...fields, leaseMs: String(LEASE_MS) }))
      .catch((error: unknown) => deps.logger.warn({ err: error, task: task.id }, 'an MCP task’s status could not be written; the next write tries again'));
    return writing;
  };
  // Renewed on the relay's clock, the one the session service measures the lease on.
  const clock = deps.clock ?? new SystemClock();
  let renewal: Timer | undefined;
  const renew = () => {
    renewal = clock.setTimer(RENEW_MS, () => {
      void write();
      renew();
    });
  };
  renew();
  void (async () => {
    try {
      const result = await dispatchToolCall(input, caller, deps, {
        signal: NEVER,
        inTask: true,
        ...channel,
        progress: async (message) => {
          state.statusMessage = message;
          await write();
        },
        onCardWait: (cardId) => {
          Object.assign(state, { status: cardId === undefined ? 'working' : 'input_required', cardId: cardId ?? '' });
          void write();
        },
      });
      Object.assign(state, { status: 'completed', resultJson: JSON.stringify(toCallToolResult(result)), cardId: '', statusMessage: '' });
    } catch (error) {
      // dispatchToolCall answers every refusal as a result; this is a fault of ours, said as one.
      deps.logger.error({ err: error, task: task.id }, 'an MCP task failed');
      Object.assign(state, { status: 'failed', statusMessage: 'Something went wrong on this relay while the task ran.', cardId: '' });
    } finally {
      renewal?.cancel();
      await write();
    }
  })();
  // The SDK checks every tools/call result as a CallToolResult, which has content: an empty one passes the check.
  return { resultType: 'task', task: taskView(task, deps.publicUrl), content: [] };
}

/** Answers tasks/get on `server` for the tasks of `caller`'s session, from the session service (any replica's). */
export function serveTasks(server: Server, caller: Caller & { sessionId: string }, deps: McpDeps & { mcpTasks: McpTaskClient }): void {
  server.setRequestHandler('tasks/get', { params: z.looseObject({ taskId: z.string() }) }, async ({ taskId }) => {
    const { task } = await deps.mcpTasks.getMcpTask({ id: taskId, sessionId: caller.sessionId }).catch((error: unknown) => {
      if (isAppError(error) && error.kind === 'not_found') throw new ProtocolError(ProtocolErrorCode.InvalidParams, `No task ${taskId} of this session.`);
      throw error;
    });
    if (task === undefined) throw new Error('GetMcpTask answered no task');
    return taskView(task, deps.publicUrl);
  });
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
