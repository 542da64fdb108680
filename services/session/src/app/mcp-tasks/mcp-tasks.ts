/**
 * The tasks of MCP's Tasks extension (docs/adr/0036-mcp-2026.md): a relay_tool call an MCP client asked to run as a
 * task. The gateway replica that runs it (its runner) writes its status here as it goes, each write renewing its lease;
 * any replica reads it for the client's tasks/get. A task that ended keeps its end. The task keeps the call, its caller
 * and the effects it made, so when its runner stops (its lease ran out, or it let the task go) another replica claims
 * it and finishes it; a write of a runner that no longer holds the task changes nothing
 * (docs/adr/0042-mcp-tasks-taken-over.md).
 */
import { invalidInput, notFound } from '../../domain/errors.ts';
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
  /** The relay_tool call's arguments (JSON), and its caller: the session's user, and whether it is external. */
  inputJson: string;
  userId: string;
  external: boolean;
  /** The call's effects begun and done (the gateway's JSON). */
  progressJson: string;
  /** The gateway replica that runs it; empty once it let the task go. */
  runnerId: string;
  leaseExpiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
}

/** The tasks in the session service's database (store/prisma-mcp-task-store.ts). */
export interface McpTaskStore {
  create(task: McpTask): Promise<void>;
  /** The task of that id in that session, or undefined. */
  find(id: string, sessionId: string): Promise<McpTask | undefined>;
  /** Writes the task unless it has ended meanwhile, or (with `runnerId`) another runner holds it; answers the task as it stands after. */
  updateUnlessEnded(task: McpTask, runnerId?: string): Promise<McpTask | undefined>;
  /** Gives `runnerId` up to `limit` tasks still at work whose lease ran out by `now`, each under `leaseExpiresAt`; none twice. */
  claimExpired(runnerId: string, now: Date, leaseExpiresAt: Date, limit: number): Promise<McpTask[]>;
}

export interface McpTaskDeps {
  mcpTasks: McpTaskStore;
  /** The sessions: a task's caller is its session's user and origin, read here, never taken from the request. */
  sessions: { findSession(sessionId: string): Promise<{ userId: string; origin: string } | undefined> };
  ids: IdGenerator;
}

/** The task to record: its session's call, the user the gateway authenticated for it, and the runner that takes it. */
interface NewMcpTask {
  sessionId: string;
  inputJson: string;
  userId: string;
  runnerId: string;
  leaseMs: number;
}

/** What the running gateway writes of a task. */
interface McpTaskUpdate {
  id: string;
  sessionId: string;
  status: McpTaskStatus;
  statusMessage: string;
  resultJson: string;
  cardId: string;
  progressJson: string;
  runnerId: string;
  leaseMs: number;
  /** The runner lets the task go: no runner holds it, and the next claim takes it over. */
  release: boolean;
}

/**
 * Records a new task of its session's agent, working, held by its runner for `leaseMs`. The caller a replica that takes
 * the task over acts as is the session's own: its user (NOT_FOUND for a session that is not the named user's) and
 * whether it is external (its origin).
 */
export async function createMcpTask(deps: McpTaskDeps, task: NewMcpTask, now: Date): Promise<McpTask> {
  const { leaseMs, ...fields } = task;
  const session = await deps.sessions.findSession(task.sessionId);
  if (session === undefined || session.userId !== task.userId) throw notFound(`No session ${task.sessionId} of this user.`, { field: 'session_id' });
  const created: McpTask = {
    ...fields,
    external: session.origin === 'external',
    id: deps.ids.newId(),
    status: 'working',
    statusMessage: '',
    resultJson: '',
    cardId: '',
    progressJson: '',
    leaseExpiresAt: new Date(now.getTime() + leaseMs),
    createdAt: now,
    updatedAt: now,
  };
  await deps.mcpTasks.create(created);
  return created;
}

/**
 * Writes a task's status and renews its lease, or (release) lets it go. A task that has ended keeps its end, and one
 * another runner holds (or none) is answered unchanged: its writer has lost it and stops. NOT_FOUND for no such task.
 */
export async function updateMcpTask(deps: Pick<McpTaskDeps, 'mcpTasks'>, update: McpTaskUpdate, now: Date): Promise<McpTask> {
  // A write that names no runner would match a task let go (held by none), past the fence.
  if (update.runnerId === '') throw invalidInput('runner_id is required.', { field: 'runner_id' });
  const found = await deps.mcpTasks.find(update.id, update.sessionId);
  if (found === undefined) throw notFound(`No task ${update.id} of this session.`, { field: 'id' });
  if (ENDED_MCP_TASK_STATUSES.includes(found.status) || found.runnerId !== update.runnerId) return found;
  const { leaseMs, release, runnerId, ...fields } = update;
  const held = release ? { runnerId: '', leaseExpiresAt: now } : { runnerId, leaseExpiresAt: new Date(now.getTime() + leaseMs) };
  const written = await deps.mcpTasks.updateUnlessEnded({ ...found, ...fields, ...held, updatedAt: now }, runnerId);
  return written ?? found;
}

/**
 * Claims for `runnerId` up to `limit` tasks still at work that no runner holds (their lease ran out, or their runner
 * let them go), each now its own under a lease of `leaseMs`.
 */
export function claimMcpTasks(deps: Pick<McpTaskDeps, 'mcpTasks'>, runnerId: string, leaseMs: number, limit: number, now: Date): Promise<McpTask[]> {
  return deps.mcpTasks.claimExpired(runnerId, now, new Date(now.getTime() + leaseMs), limit);
}

/**
 * Cancels a task of `sessionId`'s agent (its client's tasks/cancel): a task still at work ends cancelled, and its
 * gateway, whose next write finds it ended, stops what it runs; a task that has ended keeps its end. Answers the task as
 * it stands. NOT_FOUND for no such task in that session.
 */
export async function cancelMcpTask(deps: Pick<McpTaskDeps, 'mcpTasks'>, id: string, sessionId: string, now: Date): Promise<McpTask> {
  const found = await getMcpTask(deps, id, sessionId);
  if (ENDED_MCP_TASK_STATUSES.includes(found.status)) return found;
  const cancelled: McpTask = { ...found, status: 'cancelled', statusMessage: 'Cancelled by its client.', cardId: '', updatedAt: now };
  return (await deps.mcpTasks.updateUnlessEnded(cancelled)) ?? found;
}

/** A task of `sessionId`'s agent. NOT_FOUND for no such task in that session. */
export async function getMcpTask(deps: Pick<McpTaskDeps, 'mcpTasks'>, id: string, sessionId: string): Promise<McpTask> {
  const found = await deps.mcpTasks.find(id, sessionId);
  if (found === undefined) throw notFound(`No task ${id} of this session.`, { field: 'id' });
  return found;
}
