// The link to a paired relay (spec, On a paired relay): link_lost once when a fetch fails, then on the first
// answer the kept events as one replayed batch, then link_restored; the cursor moves only with an answer.
import { describe, expect, it } from 'vitest';
import { planFetch } from '../src/domain/remote-link.ts';

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
    expect(planFetch(OFFLINE, { ok: true, events: [], cursor: 600, dropped: 593 }).steps[0]).toEqual({ kind: 'ingest', events: [], replayed: true, dropped: 593 });
  });
});
