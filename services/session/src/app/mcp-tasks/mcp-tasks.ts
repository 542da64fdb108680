/**
 * The tasks of MCP's Tasks extension (docs/adr/0036-mcp-2026.md): a relay_tool call an MCP client asked to run as a
 * task. The gateway replica that took the call runs it and writes its status here as it goes, each write renewing its
 * lease; any replica reads it for the client's tasks/get. A task that ended keeps its end. A task still at work whose
 * lease ran out (its gateway stopped before it ended) reads as failed, since nobody will end it.
 */
import { notFound } from '../../domain/errors.ts';
import type { IdGenerator } from '../ports.ts';

/** A task's status, as MCP's Tasks extension names them. */
export type McpTaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

export const MCP_TASK_STATUSES: readonly McpTaskStatus[] = ['working', 'input_required', 'completed', 'failed', 'cancelled'];

/** The statuses a task ends in, and keeps. */
export const ENDED_MCP_TASK_STATUSES: readonly McpTaskStatus[] = ['completed', 'failed', 'cancelled'];

export interface McpTask {
  id: string;
  sessionId: string;
  status: McpTaskStatus;
  statusMessage: string;
  /** The call's result as the client receives it (JSON), once completed; empty before. */
  resultJson: string;
  /** The card the task waits on while input_required; empty otherwise. */
  cardId: string;
  leaseExpiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
}

/** The tasks in the session service's database (store/prisma-mcp-task-store.ts). */
export interface McpTaskStore {
  create(task: McpTask): Promise<void>;
  /** The task of that id in that session, or undefined. */
  find(id: string, sessionId: string): Promise<McpTask | undefined>;
  /** Writes the task unless it has ended meanwhile; answers the task as it stands after. */
  updateUnlessEnded(task: McpTask): Promise<McpTask | undefined>;
}

export interface McpTaskDeps {
  mcpTasks: McpTaskStore;
  ids: IdGenerator;
}

/** What the running gateway writes of a task. */
interface McpTaskUpdate {
  id: string;
  sessionId: string;
  status: McpTaskStatus;
  statusMessage: string;
  resultJson: string;
  cardId: string;
  leaseMs: number;
}

/** Records a new task of `sessionId`'s agent, working, held by its gateway for `leaseMs`. */
export async function createMcpTask(deps: McpTaskDeps, sessionId: string, leaseMs: number, now: Date): Promise<McpTask> {
  const task: McpTask = {
    id: deps.ids.newId(),
    sessionId,
    status: 'working',
    statusMessage: '',
    resultJson: '',
    cardId: '',
    leaseExpiresAt: new Date(now.getTime() + leaseMs),
    createdAt: now,
    updatedAt: now,
  };
  await deps.mcpTasks.create(task);
  return task;
}

/** Writes a task's status and renews its lease; a task that has ended keeps its end. NOT_FOUND for no such task. */
export async function updateMcpTask(deps: Pick<McpTaskDeps, 'mcpTasks'>, update: McpTaskUpdate, now: Date): Promise<McpTask> {
  const found = await deps.mcpTasks.find(update.id, update.sessionId);
  if (found === undefined) throw notFound(`No task ${update.id} of this session.`, { field: 'id' });
  if (ENDED_MCP_TASK_STATUSES.includes(found.status)) return found;
  const { leaseMs, ...fields } = update;
  const written = await deps.mcpTasks.updateUnlessEnded({ ...found, ...fields, leaseExpiresAt: new Date(now.getTime() + leaseMs), updatedAt: now });
  return written ?? found;
}

/**
 * Cancels a task of `sessionId`'s agent (its client's tasks/cancel): a task still at work ends cancelled, and its
 * gateway, whose next write finds it ended, stops what it runs; a task that has ended keeps its end. Answers the task as
 * it stands. NOT_FOUND for no such task in that session.
 */
export async function cancelMcpTask(deps: Pick<McpTaskDeps, 'mcpTasks'>, id: string, sessionId: string, now: Date): Promise<McpTask> {
  const found = await getMcpTask(deps, id, sessionId, now);
  if (ENDED_MCP_TASK_STATUSES.includes(found.status)) return found;
  const cancelled: McpTask = { ...found, status: 'cancelled', statusMessage: 'Cancelled by its client.', cardId: '', updatedAt: now };
  return (await deps.mcpTasks.updateUnlessEnded(cancelled)) ?? found;
}

/** A task of `sessionId`'s agent as it stands `now`. NOT_FOUND for no such task in that session. */
export async function getMcpTask(deps: Pick<McpTaskDeps, 'mcpTasks'>, id: string, sessionId: string, now: Date): Promise<McpTask> {
  const found = await deps.mcpTasks.find(id, sessionId);
  if (found === undefined) throw notFound(`No task ${id} of this session.`, { field: 'id' });
  return standing(found, now);
}

/** The task as it stands: one still at work past its lease has lost its gateway and will not end by itself. */
function standing(task: McpTask, now: Date): McpTask {
  if (ENDED_MCP_TASK_STATUSES.includes(task.status) || task.leaseExpiresAt.getTime() > now.getTime()) return task;
  return {
    ...task,
    status: 'failed',
    statusMessage:
      'The gateway running this task stopped before it ended, and no other takes it over. What the call started goes on: read_session of the session it called shows whether its message was delivered (do not send it again), and wait with that message’s id waits for the reply; a card it raised stays in the Inbox, and the same call made again finds its decision.',
  };
}
