/**
 * A running task's output on its way to PostgreSQL: what the command writes is gathered and appended as one
 * batch at most every FLUSH_MS (real time: batching is a transport concern), in chunks of at most CHUNK_BYTES,
 * keeping only the last TASK_OUTPUT_KEPT_BYTES. The runner is the only writer of its task's chunks, so the
 * sequence numbers and the sizes of the chunks kept live here.
 */
import { outsideTrace, type Logger } from '@relay/telemetry';
import { TASK_OUTPUT_KEPT_BYTES } from '../../domain/tasks/task.ts';
import type { OutputBatch, RunningTaskStore } from '../../app/tasks/ports.ts';

/** Real time between two appends of a task's output: a reader on another replica sees it this late at most. */
const FLUSH_MS = 500;
const CHUNK_BYTES = 64 * 1024;
/** Relay time between two task_output events of a task: watchers count its silence in minutes. */
export const OUTPUT_ANNOUNCE_MS = 60_000;

export class TaskOutputLog {
  readonly #taskId: string;
  readonly #store: Pick<RunningTaskStore, 'appendOutput'>;
  readonly #log: Logger;
  /** Written by the command and not appended yet (bounded: its start is dropped past the kept bytes). */
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #pendingWritten = 0;
  #pendingDropped = false;
  #lastOutputAt: Date | null = null;
  /** The output time the last task_output event carried; null before the first. */
  #announcedAt: Date | null = null;
  /** The chunks kept in the database, oldest first. */
  readonly #kept: { seq: number; size: number }[] = [];
  #keptSize = 0;
  #nextSeq = 0;
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();
  /** Appends wait until the task's row exists. */
  #open = false;

  constructor(options: { taskId: string; store: Pick<RunningTaskStore, 'appendOutput'>; logger: Logger }) {
    this.#taskId = options.taskId;
    this.#store = options.store;
    this.#log = options.logger;
  }

  /** Takes what the command wrote at `at`. */
  write(data: Buffer, at: Date): void {
    this.#pending.push(data);
    this.#pendingBytes += data.length;
    this.#pendingWritten += data.length;
    this.#lastOutputAt = at;
    this.#trimPending();
    this.#schedule();
  }

  /** The task's row exists: appends may start. */
  open(): void {
    this.#open = true;
    this.#schedule();
  }

  /** Appends what is pending now and waits for every append so far. */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#flushing = this.#flushing.then(() => this.#append());
    return this.#flushing;
  }

  #schedule(): void {
    if (!this.#open || this.#timer !== undefined || this.#pendingWritten === 0) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.flush();
    }, FLUSH_MS);
    this.#timer.unref();
  }

  /** Drops the start of what is pending past the kept bytes: it could never be read. */
  #trimPending(): void {
    while (this.#pending.length > 1 && this.#pendingBytes - this.#pending[0]!.length >= TASK_OUTPUT_KEPT_BYTES) {
      this.#pendingBytes -= this.#pending.shift()!.length;
      this.#pendingDropped = true;
    }
  }

  async #append(): Promise<void> {
    if (this.#pendingWritten === 0 || this.#lastOutputAt === null) return;
    // Taken out of pending while it is appended: what the command writes meanwhile goes to the next batch.
    const taken = { buffers: this.#pending, bytes: this.#pendingBytes, written: this.#pendingWritten, dropped: this.#pendingDropped };
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#pendingWritten = 0;
    this.#pendingDropped = false;

    const all = Buffer.concat(taken.buffers);
    const data = all.subarray(Math.max(0, all.length - TASK_OUTPUT_KEPT_BYTES));
    const chunks: OutputBatch['chunks'] = [];
    for (let start = 0; start < data.length; start += CHUNK_BYTES)
      chunks.push({ seq: this.#nextSeq + chunks.length, data: data.subarray(start, start + CHUNK_BYTES) });
    // The oldest kept chunks that no longer fit with the new ones (the new ones alone always fit).
    const kept = [...this.#kept, ...chunks.map((chunk) => ({ seq: chunk.seq, size: chunk.data.length }))];
    let keptSize = this.#keptSize + data.length;
    let dropThroughSeq: number | undefined;
    while (keptSize > TASK_OUTPUT_KEPT_BYTES) {
      const oldest = kept.shift()!;
      keptSize -= oldest.size;
      dropThroughSeq = oldest.seq;
    }
    const lastOutputAt = this.#lastOutputAt;
    const announce = this.#announcedAt === null || lastOutputAt.getTime() - this.#announcedAt.getTime() >= OUTPUT_ANNOUNCE_MS;
    try {
      // A write every few seconds of a task that may run for hours: not a span each in the trace that started it.
      await outsideTrace(() =>
        this.#store.appendOutput(this.#taskId, {
          chunks,
          bytes: taken.written,
          lastOutputAt,
          dropThroughSeq,
          droppedUnwritten: taken.dropped || data.length < all.length,
          announce,
        }),
      );
      if (announce) this.#announcedAt = lastOutputAt;
    } catch (error) {
      // Back in front of what came meanwhile: the next append carries it.
      this.#log.warn({ err: error }, 'could not append the task output; will try again');
      this.#pending = [...taken.buffers, ...this.#pending];
      this.#pendingBytes += taken.bytes;
      this.#pendingWritten += taken.written;
      this.#pendingDropped ||= taken.dropped;
      this.#trimPending();
      this.#schedule();
      return;
    }
    this.#kept.splice(0, this.#kept.length, ...kept);
    this.#keptSize = keptSize;
    this.#nextSeq += chunks.length;
    this.#schedule();
  }
}
