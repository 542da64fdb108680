// The replay buffer's rules (decisions.md, Replay on a paired relay): the newest 500 per subscription, for at most
// 7 days, older ones dropped and counted, read by a cursor that only moves forward.
import { describe, expect, it } from 'vitest';
import { keptBounds, readAfter, REMOTE_BUFFER_LIMIT, REMOTE_BUFFER_MAX_AGE_MS } from '../src/domain/remote-buffer.ts';

const NOW = new Date('2026-11-30T12:00:00.000Z');
const DAY = 24 * 60 * 60_000;

function events(from: number, to: number, occurredAt: (seq: number) => Date = () => NOW): { seq: number; occurredAt: Date }[] {
  return Array.from({ length: to - from + 1 }, (_, index) => ({ seq: from + index, occurredAt: occurredAt(from + index) }));
}

describe('keptBounds', () => {
  it('keeps the newest 500 seqs and 7 days', () => {
    expect(REMOTE_BUFFER_LIMIT).toBe(500);
    expect(REMOTE_BUFFER_MAX_AGE_MS).toBe(7 * DAY);
    expect(keptBounds(1200, NOW)).toEqual({ minSeq: 701, since: new Date(NOW.getTime() - 7 * DAY) });
  });

  it('keeps from seq 1 while fewer than 500 were kept', () => {
    expect(keptBounds(3, NOW).minSeq).toBe(1);
  });
});

describe('readAfter', () => {
  it('answers every kept event after the cursor, oldest first, with the last seq as the next cursor', () => {
    const page = readAfter([...events(4, 6)].reverse(), 3, 6, NOW);
    expect(page.events.map((event) => event.seq)).toEqual([4, 5, 6]);
    expect(page).toMatchObject({ cursor: 6, dropped: 0 });
  });

  it('leaves out what the cursor already acknowledged', () => {
    expect(readAfter(events(1, 6), 4, 6, NOW).events.map((event) => event.seq)).toEqual([5, 6]);
  });

  it('answers nothing and keeps the cursor when nothing came', () => {
    expect(readAfter(events(1, 6), 6, 6, NOW)).toEqual({ events: [], cursor: 6, dropped: 0 });
  });

  it('past 500 events gives the newest 500 and counts the older ones as dropped', () => {
    const page = readAfter(events(1, 520), 0, 520, NOW);
    expect(page.events).toHaveLength(500);
    expect(page.events[0]!.seq).toBe(21);
    expect(page).toMatchObject({ cursor: 520, dropped: 20 });
  });

  it('counts events already pruned from the store (a gap in the seqs) as dropped', () => {
    const page = readAfter(events(31, 530), 10, 530, NOW);
    expect(page.events).toHaveLength(500);
    expect(page.dropped).toBe(20);
  });

  it('drops events older than 7 days at now and counts them', () => {
    const old = (seq: number) => (seq <= 2 ? new Date(NOW.getTime() - 7 * DAY - 1) : new Date(NOW.getTime() - 7 * DAY));
    const page = readAfter(events(1, 5, old), 0, 5, NOW);
    expect(page.events.map((event) => event.seq)).toEqual([3, 4, 5]);
    expect(page.dropped).toBe(2);
  });

  it('takes limits given for a test', () => {
    const page = readAfter(events(1, 8), 0, 8, NOW, { limit: 3, maxAgeMs: DAY });
    expect(page.events.map((event) => event.seq)).toEqual([6, 7, 8]);
    expect(page.dropped).toBe(5);
  });

  it('restarts a cursor ahead of the watch at its last seq, counting nothing', () => {
    expect(readAfter(events(1, 2), 9, 2, NOW)).toEqual({ events: [], cursor: 2, dropped: 0 });
  });
});
