/**
 * Tasks in PostgreSQL: each start and end is one transaction with its event in the outbox, and a task's
 * output is kept there too, as chunks in the order it came (ADR 0010), so any replica reads it and it
 * outlives the process that ran the command.
 */
import { randomUUID } from 'node:crypto';
import { enqueue } from '@relay/bus';
import type { NewTask, OutputBatch, RunningTaskStore, TaskEnd, TaskOutputReader, TaskStore } from '../../app/tasks/ports.ts';
import type { Task, TaskStatus, TaskType } from '../../domain/tasks/task.ts';
import type { Prisma, PrismaClient } from '../../generated/prisma/client.ts';
import { taskEvent, taskOutputEvent, type ApiMessages } from './outbox-events.ts';

type TaskRow = Awaited<ReturnType<PrismaClient['task']['findFirstOrThrow']>>;

export class PrismaTaskStore implements TaskStore, TaskOutputReader, RunningTaskStore {
  readonly #prisma: PrismaClient;
  /** The gRPC API's Task encoder: the task events carry the task (main.ts passes adapters/grpc/wire's). */
  readonly #api: Pick<ApiMessages, 'toTaskMessage'>;

  constructor(prisma: PrismaClient, api: Pick<ApiMessages, 'toTaskMessage'>) {
    this.#prisma = prisma;
    this.#api = api;
  }

  /** Records a running task and its task_started event; undefined when the session is gone. */
  async insertTask(task: NewTask, pid: number | null): Promise<Task | undefined> {
    return this.#prisma.$transaction(async (tx) => {
      const session = await tx.session.findUnique({ where: { id: task.sessionId }, select: { userId: true } });
      if (session === null) return undefined;
      const row = await tx.task.create({ data: { ...task, status: 'running', pid } });
      const created = toTask(row);
      const eventId = randomUUID();
      await enqueue(tx, taskEvent(this.#api, 'started', { eventId, occurredAt: task.startedAt, userId: session.userId, task: created }));
      return created;
    });
  }

  /**
   * Ends a running task with its event; undefined when it had ended already. With `leaseBefore`, only a
   * task whose lease ran out before that instant (its runner is gone) is ended.
   */
  async endTask(taskId: string, end: TaskEnd, options: { leaseBefore?: Date } = {}): Promise<Task | undefined> {
    return this.#prisma.$transaction(async (tx) => {
      const updated = await tx.task.updateMany({
        where: { id: taskId, status: 'running', ...(options.leaseBefore ? { leaseUntil: { lt: options.leaseBefore } } : {}) },
        data: { ...end, leaseUntil: null },
      });
      if (updated.count === 0) return undefined;
      const row = await tx.task.findUniqueOrThrow({ where: { id: taskId }, include: { session: { select: { userId: true } } } });
      const ended = toTask(row);
      const eventId = randomUUID();
      await enqueue(tx, taskEvent(this.#api, 'ended', { eventId, occurredAt: end.endedAt, userId: row.session.userId, task: ended }));
      return ended;
    });
  }

  /**
   * Appends a batch of output, notes when it came, and drops the chunks past the task's bound, in one transaction;
   * with `announce`, its task_output event goes into the outbox in that transaction too.
   */
  async appendOutput(taskId: string, batch: OutputBatch): Promise<void> {
    const dropped = batch.dropThroughSeq !== undefined || batch.droppedUnwritten;
    await this.#prisma.$transaction(async (tx) => {
      await tx.taskOutputChunk.createMany({
        data: batch.chunks.map((chunk) => ({ taskId, seq: chunk.seq, data: new Uint8Array(chunk.data), size: chunk.data.byteLength })),
      });
      const row = await tx.task.update({
        where: { id: taskId },
        data: { outputBytes: { increment: batch.bytes }, lastOutputAt: batch.lastOutputAt, ...(dropped ? { outputDropped: true } : {}) },
        select: { sessionId: true, session: { select: { userId: true } } },
      });
      if (batch.dropThroughSeq !== undefined) await tx.taskOutputChunk.deleteMany({ where: { taskId, seq: { lte: batch.dropThroughSeq } } });
      if (batch.announce) {
        const eventId = randomUUID();
        await enqueue(
          tx,
          taskOutputEvent({
            eventId,
            occurredAt: batch.lastOutputAt,
            sessionId: row.sessionId,
            userId: row.session.userId,
            taskId,
            lastOutputAt: batch.lastOutputAt,
          }),
        );
      }
    });
  }

  /** The last `maxBytes` (or a little more: whole chunks) of a task's kept output, and whether kept chunks came before. */
  async readEnd(taskId: string, maxBytes: number): Promise<{ text: string; cut: boolean }> {
    const rows = await this.#prisma.$queryRaw<{ data: Uint8Array; earlier: bigint }[]>`
      WITH chunks AS (
        SELECT seq, data, SUM(size) OVER (ORDER BY seq DESC) - size AS after, COUNT(*) OVER (ORDER BY seq) - 1 AS earlier
          FROM task_output_chunks WHERE task_id = ${taskId}
      )
      SELECT data, earlier FROM chunks WHERE after < ${maxBytes} ORDER BY seq`;
    if (rows.length === 0) return { text: '', cut: false };
    let bytes = Buffer.concat(rows.map((row) => row.data));
    let cut = rows[0]!.earlier > 0n;
    if (bytes.length > maxBytes) {
      bytes = bytes.subarray(bytes.length - maxBytes);
      cut = true;
    }
    let text = bytes.toString('utf8');
    // The first line was cut in the middle: the console would not show half a line.
    if (cut) text = text.slice(text.indexOf('\n') + 1);
    return { text, cut };
  }

  /**
   * A running task showed a sign of life without output (a sub-agent's progress): its lastOutputAt, and with
   * `announce` a task_output event in the same transaction, so a watcher's stall is counted from it.
   */
  async touchTask(taskId: string, at: Date, announce: boolean): Promise<void> {
    await this.#prisma.$transaction(async (tx) => {
      const updated = await tx.task.updateMany({ where: { id: taskId, status: 'running' }, data: { lastOutputAt: at } });
      if (updated.count === 0 || !announce) return;
      const row = await tx.task.findUniqueOrThrow({ where: { id: taskId }, select: { sessionId: true, session: { select: { userId: true } } } });
      const eventId = randomUUID();
      await enqueue(tx, taskOutputEvent({ eventId, occurredAt: at, sessionId: row.sessionId, userId: row.session.userId, taskId, lastOutputAt: at }));
    });
  }

  /** Renews the leases of this runner's running tasks among `taskIds`; answers the ids it still holds. */
  async renewLeases(runnerId: string, taskIds: readonly string[], leaseUntil: Date): Promise<Set<string>> {
    if (taskIds.length === 0) return new Set();
    const where: Prisma.TaskWhereInput = { id: { in: [...taskIds] }, runnerId, status: 'running' };
    await this.#prisma.task.updateMany({ where, data: { leaseUntil } });
    const held = await this.#prisma.task.findMany({ where, select: { id: true } });
    return new Set(held.map((row) => row.id));
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

  /** Ids of running tasks of other runners whose lease ran out before `now`: their runner is gone. */
  async expiredLeases(runnerId: string, now: Date): Promise<string[]> {
    const rows = await this.#prisma.task.findMany({ where: { status: 'running', runnerId: { not: runnerId }, leaseUntil: { lt: now } }, select: { id: true } });
    return rows.map((row) => row.id);
  }

  /** Removes the output of the tasks that ended before `before`; answers how many tasks lost theirs. */
  async removeOutputs(before: Date): Promise<number> {
    const ended = { endedAt: { lt: before }, outputRemoved: false };
    const [, removed] = await this.#prisma.$transaction([
      this.#prisma.taskOutputChunk.deleteMany({ where: { task: ended } }),
      this.#prisma.task.updateMany({ where: ended, data: { outputRemoved: true } }),
    ]);
    return removed.count;
  }
}

function toTask(row: TaskRow): Task {
  return {
    id: row.id,
    sessionId: row.sessionId,
    description: row.description,
    type: row.type as TaskType,
    status: row.status as TaskStatus,
    exitCode: row.exitCode,
    reason: row.reason,
    cwd: row.cwd,
    startedAt: row.startedAt,
    endedAt: row.endedAt,
    lastOutputAt: row.lastOutputAt,
    outputBytes: Number(row.outputBytes),
    outputDropped: row.outputDropped,
    outputRemoved: row.outputRemoved,
  };
}
