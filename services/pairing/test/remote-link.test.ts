// The link to a paired relay (spec, On a paired relay): link_lost once when a fetch fails, then on the first
// answer the kept events as one replayed batch, then link_restored; the cursor moves only with an answer.
import { describe, expect, it } from 'vitest';
import { AWAY_AFTER_INTERVALS, AWAY_AFTER_MS, planFetch, sinceLastFetch } from '../src/domain/remote-link.ts';

const ONLINE = { online: true, cursor: 7 };
const OFFLINE = { online: false, cursor: 7 };

describe('planFetch', () => {
  it('delivers a batch as it comes while the link holds', () => {
    expect(planFetch(ONLINE, { ok: true, events: ['a', 'b'], cursor: 9, dropped: 0 })).toEqual({
      steps: [{ kind: 'ingest', events: ['a', 'b'], replayed: false, dropped: 0 }],
      online: true,
      cursor: 9,
    });
  });

  it('does nothing but move on when nothing came', () => {
    expect(planFetch(ONLINE, { ok: true, events: [], cursor: 7, dropped: 0 })).toEqual({ steps: [], online: true, cursor: 7 });
  });

  it('reports link_lost on the first failed fetch and keeps the cursor', () => {
    expect(planFetch(ONLINE, { ok: false })).toEqual({ steps: [{ kind: 'report', online: false }], online: false, cursor: 7 });
  });

  it('reports nothing more while the link stays down', () => {
    expect(planFetch(OFFLINE, { ok: false })).toEqual({ steps: [], online: false, cursor: 7 });
  });

  it('on return delivers what was kept as one replayed batch with the drop count, then link_restored', () => {
    expect(planFetch(OFFLINE, { ok: true, events: ['a', 'b', 'c'], cursor: 10, dropped: 4 })).toEqual({
      steps: [
        { kind: 'ingest', events: ['a', 'b', 'c'], replayed: true, dropped: 4 },
        { kind: 'report', online: true },
      ],
      online: true,
      cursor: 10,
    });
  });

  it('on return with nothing kept only reports link_restored', () => {
    expect(planFetch(OFFLINE, { ok: true, events: [], cursor: 7, dropped: 0 })).toEqual({ steps: [{ kind: 'report', online: true }], online: true, cursor: 7 });
  });

  it('tells about events dropped even when none is left to deliver', () => {
    expect(planFetch(OFFLINE, { ok: true, events: [], cursor: 600, dropped: 593 }).steps[0]).toEqual({
      kind: 'ingest',
      events: [],
      replayed: true,
      dropped: 593,
    });
  });

  // Issue 39: the watching relay itself was away, so it never saw a failed fetch; the gap must show all the same.
  it('a batch with events dropped there is a replay between link_lost at the last contact and link_restored, though no fetch failed', () => {
    const lastContactAt = new Date('2026-11-30T11:00:00.000Z');
    expect(planFetch({ ...ONLINE, lastContactAt }, { ok: true, events: ['a', 'b'], cursor: 609, dropped: 600 })).toEqual({
      steps: [
        { kind: 'report', online: false, at: lastContactAt },
        { kind: 'ingest', events: ['a', 'b'], replayed: true, dropped: 600 },
        { kind: 'report', online: true },
      ],
      online: true,
      cursor: 609,
    });
  });

  it('events kept there while this relay was away are a replay too, even with nothing dropped', () => {
    const lastContactAt = new Date('2026-11-30T11:00:00.000Z');
    expect(planFetch({ ...ONLINE, lastContactAt, away: true }, { ok: true, events: ['a'], cursor: 8, dropped: 0 }).steps).toEqual([
      { kind: 'report', online: false, at: lastContactAt },
      { kind: 'ingest', events: ['a'], replayed: true, dropped: 0 },
      { kind: 'report', online: true },
    ]);
  });

  it('away while nothing happened there is no gap in the events: nothing to report', () => {
    expect(planFetch({ ...ONLINE, away: true }, { ok: true, events: [], cursor: 7, dropped: 0 }).steps).toEqual([]);
  });

  it('on a return after a failed fetch the stored state already tells: no second link_lost', () => {
    expect(planFetch({ ...OFFLINE, away: true, lastContactAt: new Date(0) }, { ok: true, events: ['a'], cursor: 8, dropped: 2 }).steps).toEqual([
      { kind: 'ingest', events: ['a'], replayed: true, dropped: 2 },
      { kind: 'report', online: true },
    ]);
  });
});

describe('sinceLastFetch', () => {
  const due = new Date('2026-11-30T12:00:00.000Z');

  it('a fetch on time or a little late: the relay was not away; the last contact was an interval before it was due', () => {
    expect(sinceLastFetch(due, 2_000, new Date(due.getTime() + AWAY_AFTER_MS))).toEqual({ lastContactAt: new Date(due.getTime() - 2_000), away: false });
  });

  it('a fetch more than AWAY_AFTER_MS past due: this relay was away', () => {
    expect(sinceLastFetch(due, 2_000, new Date(due.getTime() + AWAY_AFTER_MS + 1)).away).toBe(true);
  });

  it('with a long fetch interval (a fast relay clock) the bound is that many intervals, not a fixed time', () => {
    expect(sinceLastFetch(due, 30_000, new Date(due.getTime() + AWAY_AFTER_INTERVALS * 30_000)).away).toBe(false);
    expect(sinceLastFetch(due, 30_000, new Date(due.getTime() + AWAY_AFTER_INTERVALS * 30_000 + 1)).away).toBe(true);
  });

  it('without a due time nothing is known', () => {
    expect(sinceLastFetch(undefined, 2_000, due)).toEqual({ away: false });
  });
});
