/**
 * Tasks in PostgreSQL: each start and end is one transaction with its event in the outbox.
 */
import { randomUUID } from 'node:crypto';
import { enqueue } from '@relay/bus';
import type { TaskStore } from '../domain/tasks/ports.ts';
import type { Task, TaskStatus } from '../domain/tasks/task.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { taskEvent } from './task-wire.ts';

type TaskRow = Awaited<ReturnType<PrismaClient['task']['findFirstOrThrow']>>;

/** What a new task row holds. */
export interface NewTask {
  id: string;
  sessionId: string;
  description: string;
  cwd: string;
  outputPath: string;
  host: string;
  runnerId: string;
  startedAt: Date;
}

/** How a task ended. */
export interface TaskEnd {
  status: Exclude<TaskStatus, 'running'>;
  exitCode: number | null;
  reason: string;
  endedAt: Date;
}

export class PrismaTaskStore implements TaskStore {
  readonly #prisma: PrismaClient;

  constructor(prisma: PrismaClient) {
    this.#prisma = prisma;
  }

  /** Records a running task and its task_started event; undefined when the session is gone. */
  async insertTask(task: NewTask, pid: number | null): Promise<Task | undefined> {
    return this.#prisma.$transaction(async (tx) => {
      const session = await tx.session.findUnique({ where: { id: task.sessionId }, select: { userId: true } });
      if (session === null) return undefined;
      const row = await tx.task.create({ data: { ...task, status: 'running', pid } });
      const created = toTask(row);
      const eventId = randomUUID();
      await enqueue(tx, { id: eventId, ...taskEvent('started', { eventId, occurredAt: task.startedAt, userId: session.userId, task: created }) });
      return created;
    });
  }

  /** Ends a running task with its event; undefined when it had ended already. */
  async endTask(taskId: string, end: TaskEnd, lastOutputAt: Date | null): Promise<Task | undefined> {
    return this.#prisma.$transaction(async (tx) => {
      const updated = await tx.task.updateMany({
        where: { id: taskId, status: 'running' },
        data: { ...end, ...(lastOutputAt === null ? {} : { lastOutputAt }) },
      });
      if (updated.count === 0) return undefined;
      const row = await tx.task.findUniqueOrThrow({ where: { id: taskId }, include: { session: { select: { userId: true } } } });
      const ended = toTask(row);
      const eventId = randomUUID();
      await enqueue(tx, { id: eventId, ...taskEvent('ended', { eventId, occurredAt: end.endedAt, userId: row.session.userId, task: ended }) });
      return ended;
    });
  }

  /** Notes that a running task wrote output at `at`. */
  async touchOutput(taskId: string, at: Date): Promise<void> {
    await this.#prisma.task.updateMany({ where: { id: taskId, status: 'running' }, data: { lastOutputAt: at } });
  }

  async findTask(taskId: string): Promise<(Task & { userId: string }) | undefined> {
    const row = await this.#prisma.task.findUnique({ where: { id: taskId }, include: { session: { select: { userId: true } } } });
    return row === null ? undefined : { ...toTask(row), userId: row.session.userId };
  }

  async tasksOf(sessionIds: readonly string[], endedSince: Date): Promise<Task[]> {
    if (sessionIds.length === 0) return [];
    const rows = await this.#prisma.task.findMany({
      where: { sessionId: { in: [...sessionIds] }, OR: [{ status: 'running' }, { endedAt: { gte: endedSince } }] },
      orderBy: [{ startedAt: 'asc' }, { id: 'asc' }],
    });
    return rows.map(toTask);
  }

  /** Running tasks of this host that another (earlier) runner started: their process died with it. */
  async orphans(host: string, runnerId: string): Promise<(Task & { pid: number | null })[]> {
    const rows = await this.#prisma.task.findMany({ where: { status: 'running', host, runnerId: { not: runnerId } } });
    return rows.map((row) => ({ ...toTask(row), pid: row.pid }));
  }

  /** Output files of this host's tasks that ended before `before` (and after `after`), to remove. */
  async endedOutputs(host: string, after: Date, before: Date): Promise<string[]> {
    const rows = await this.#prisma.task.findMany({ where: { host, endedAt: { gte: after, lt: before } }, select: { outputPath: true } });
    return rows.map((row) => row.outputPath);
  }
}

function toTask(row: TaskRow): Task {
  return {
    id: row.id,
    sessionId: row.sessionId,
    description: row.description,
    type: 'local_bash',
    status: row.status as TaskStatus,
    exitCode: row.exitCode,
    reason: row.reason,
    cwd: row.cwd,
    outputPath: row.outputPath,
    startedAt: row.startedAt,
    endedAt: row.endedAt,
    lastOutputAt: row.lastOutputAt,
  };
}
