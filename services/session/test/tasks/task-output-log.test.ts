import { describe, expect, it } from 'vitest';
import { createLogger } from '@relay/telemetry';
import { TASK_OUTPUT_KEPT_BYTES } from '../../src/domain/tasks/task.ts';
import type { OutputBatch } from '../../src/app/tasks/ports.ts';
import { TaskOutputLog } from '../../src/adapters/tasks/task-output-log.ts';

const logger = createLogger({ name: 'task-output-log-test', level: 'silent' });
const at = new Date('2026-11-30T10:00:00.000Z');

/** A store that keeps the chunks as the database would, and fails the appends it is told to. */
function fakeStore() {
  const chunks = new Map<number, Buffer>();
  const batches: OutputBatch[] = [];
  let failures = 0;
  return {
    chunks,
    batches,
    failNext: (count: number) => (failures = count),
    text: () =>
      [...chunks.entries()]
        .sort(([a], [b]) => a - b)
        .map(([, data]) => data.toString())
        .join(''),
    appendOutput: async (_taskId: string, batch: OutputBatch) => {
      if (failures > 0) {
        failures--;
        throw new Error('database unavailable');
      }
      batches.push(batch);
      for (const chunk of batch.chunks) chunks.set(chunk.seq, Buffer.from(chunk.data));
      if (batch.dropThroughSeq !== undefined) for (const seq of [...chunks.keys()]) if (seq <= batch.dropThroughSeq) chunks.delete(seq);
    },
  };
}

describe('a task output log', () => {
  it('appends what came as one batch with its byte count and last output time', async () => {
    const store = fakeStore();
    const log = new TaskOutputLog({ taskId: 't1', store, logger });
    log.open();
    log.write(Buffer.from('one\n'), at);
    log.write(Buffer.from('two\n'), new Date(at.getTime() + 1000));
    await log.flush();
    expect(store.batches).toEqual([
      {
        chunks: [{ seq: 0, data: Buffer.from('one\ntwo\n') }],
        bytes: 8,
        lastOutputAt: new Date(at.getTime() + 1000),
        dropThroughSeq: undefined,
        droppedUnwritten: false,
        announce: true,
      },
    ]);
  });

  it('announces the output time (a task_output event) with the first batch, then at most once a minute of relay time', async () => {
    const store = fakeStore();
    const log = new TaskOutputLog({ taskId: 't1', store, logger });
    log.open();
    for (const seconds of [0, 30, 59, 60, 90, 125]) {
      log.write(Buffer.from('x\n'), new Date(at.getTime() + seconds * 1000));
      await log.flush();
    }
    expect(store.batches.map((batch) => batch.announce)).toEqual([true, false, false, true, false, true]);
  });

  it('a failed append is carried by the next one, in order, nothing lost', async () => {
    const store = fakeStore();
    const log = new TaskOutputLog({ taskId: 't1', store, logger });
    log.open();
    log.write(Buffer.from('a\n'), at);
    store.failNext(1);
    await log.flush();
    log.write(Buffer.from('b\n'), at);
    await log.flush();
    expect(store.text()).toBe('a\nb\n');
    expect(store.batches.map((batch) => batch.bytes)).toEqual([4]);
  });

  it('keeps only the last TASK_OUTPUT_KEPT_BYTES: the oldest chunks are dropped and the drop is noted', async () => {
    const store = fakeStore();
    const log = new TaskOutputLog({ taskId: 't1', store, logger });
    log.open();
    const line = (n: number) => `line ${String(n).padStart(7, '0')}\n`;
    let written = 0;
    for (let batch = 0; batch < 12; batch++) {
      const text = Array.from({ length: 6000 }, (_, i) => line(batch * 6000 + i)).join('');
      written += text.length;
      log.write(Buffer.from(text), at);
      await log.flush();
    }
    const kept = store.text();
    expect(kept.length).toBeLessThanOrEqual(TASK_OUTPUT_KEPT_BYTES);
    expect(kept.length).toBeGreaterThan(TASK_OUTPUT_KEPT_BYTES - 64 * 1024);
    expect(kept.endsWith(line(12 * 6000 - 1))).toBe(true);
    expect(store.batches.some((batch) => batch.dropThroughSeq !== undefined)).toBe(true);
    expect(store.batches.reduce((sum, batch) => sum + batch.bytes, 0)).toBe(written);
  });

  it('one write larger than the bound keeps its end and says the rest was dropped', async () => {
    const store = fakeStore();
    const log = new TaskOutputLog({ taskId: 't1', store, logger });
    log.open();
    log.write(Buffer.alloc(TASK_OUTPUT_KEPT_BYTES + 10, 'x'), at);
    log.write(Buffer.from('end\n'), at);
    await log.flush();
    expect(store.text().length).toBeLessThanOrEqual(TASK_OUTPUT_KEPT_BYTES);
    expect(store.text().endsWith('xend\n')).toBe(true);
    expect(store.batches[0]).toMatchObject({ bytes: TASK_OUTPUT_KEPT_BYTES + 14, droppedUnwritten: true });
  });
});
