// One fetch of a subscription to a paired relay, against fakes of our own ports: the cursor moves only once the
// subscription service took the batch; a drop reports link_lost once; the return delivers one replayed batch and
// then link_restored; a subscription that ended here ends the fetching.
import { AppError } from '@relay/errors';
import { describe, expect, it } from 'vitest';
import { fetchDueSubscription, fetchRemoteSubscription } from '../src/app/remote-fetch.ts';
import type { FetchOutcome } from '../src/domain/remote-link.ts';
import type { IngestEvent, RemoteEventsLine, RemoteIngest, RemoteSubscriptionStore } from '../src/app/remote-ports.ts';

const NOW = new Date('2026-11-30T12:00:00.000Z');

function event(id: string): IngestEvent {
  return { id, kind: 'turn_end', sessionId: '77aa', sessionTitle: 'Nightly deploy', text: 'done', status: 'done', refId: '', occurredAt: NOW };
}

function line(outcome: FetchOutcome<IngestEvent>, asked: number[] = []): RemoteEventsLine {
  return {
    register: async () => ({ sessions: [] }),
    fetch: async (_relay, _id, after) => {
      asked.push(after);
      return outcome;
    },
    end: async () => undefined,
  };
}

function ingest(calls: unknown[], fail?: Error, ended = false): RemoteIngest {
  return {
    ingest: async (input) => {
      if (fail) throw fail;
      calls.push({ ingest: input.events.map((e) => e.id), replayed: input.replayed, dropped: input.dropped });
      return { ended };
    },
    reportLink: async (input) => {
      calls.push({ online: input.online, at: input.at });
    },
    endRelay: async () => [],
  };
}

const subscription = (online: boolean) => ({ subscriptionId: 'sub_1', relay: 'build-box', cursor: 4, online });

describe('fetchRemoteSubscription', () => {
  it('asks after the stored cursor and moves it once the batch was taken', async () => {
    const calls: unknown[] = [];
    const asked: number[] = [];
    const result = await fetchRemoteSubscription(
      subscription(true),
      { line: line({ ok: true, events: [event('e5')], cursor: 5, dropped: 0 }, asked), ingest: ingest(calls) },
      NOW,
    );
    expect(asked).toEqual([4]);
    expect(calls).toEqual([{ ingest: ['e5'], replayed: false, dropped: 0 }]);
    expect(result).toEqual({ kind: 'settled', cursor: 5, online: true });
  });

  it('reports link_lost at now when the relay does not answer, keeping the cursor', async () => {
    const calls: unknown[] = [];
    const result = await fetchRemoteSubscription(subscription(true), { line: line({ ok: false }), ingest: ingest(calls) }, NOW);
    expect(calls).toEqual([{ online: false, at: NOW }]);
    expect(result).toEqual({ kind: 'settled', cursor: 4, online: false });
  });

  it('on return hands over the kept events as one replayed batch with the drop count, then link_restored', async () => {
    const calls: unknown[] = [];
    const outcome = { ok: true as const, events: [event('e5'), event('e6')], cursor: 9, dropped: 3 };
    const result = await fetchRemoteSubscription(subscription(false), { line: line(outcome), ingest: ingest(calls) }, NOW);
    expect(calls).toEqual([
      { ingest: ['e5', 'e6'], replayed: true, dropped: 3 },
      { online: true, at: NOW },
    ]);
    expect(result).toEqual({ kind: 'settled', cursor: 9, online: true });
  });

  it('after this relay was away (the fetch long past due), events kept there come as a replay between link_lost at the last contact and link_restored', async () => {
    const calls: unknown[] = [];
    const dueAt = new Date(NOW.getTime() - 10 * 60_000);
    const outcome = { ok: true as const, events: [event('e5')], cursor: 105, dropped: 100 };
    const result = await fetchRemoteSubscription({ ...subscription(true), dueAt }, { line: line(outcome), ingest: ingest(calls) }, NOW, { intervalMs: 2_000 });
    expect(calls).toEqual([
      { online: false, at: new Date(dueAt.getTime() - 2_000) },
      { ingest: ['e5'], replayed: true, dropped: 100 },
      { online: true, at: NOW },
    ]);
    expect(result).toEqual({ kind: 'settled', cursor: 105, online: true });
  });

  it('throws, storing nothing, when the subscription service fails: the same events are fetched again', async () => {
    const calls: unknown[] = [];
    const failing = ingest(calls, new AppError('SERVICE_UNAVAILABLE', 'unavailable', 'down'));
    await expect(
      fetchRemoteSubscription(subscription(false), { line: line({ ok: true, events: [event('e5')], cursor: 5, dropped: 0 }), ingest: failing }, NOW),
    ).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(calls).toEqual([]);
  });

  it('answers ended when the subscription no longer exists here', async () => {
    const gone = ingest([], new AppError('REMOTE_RELAY_NOT_FOUND', 'not_found', 'no such subscription'));
    expect(
      await fetchRemoteSubscription(subscription(true), { line: line({ ok: true, events: [event('e5')], cursor: 5, dropped: 0 }), ingest: gone }, NOW),
    ).toEqual({ kind: 'ended' });
  });

  it('answers ended, reporting nothing more, when the batch ended the subscription (its last listed session was archived there)', async () => {
    const calls: unknown[] = [];
    const outcome = { ok: true as const, events: [event('e5'), { ...event('e6'), kind: 'archived', text: '', status: '' }], cursor: 6, dropped: 0 };
    expect(await fetchRemoteSubscription(subscription(false), { line: line(outcome), ingest: ingest(calls, undefined, true) }, NOW)).toEqual({ kind: 'ended' });
    expect(calls).toEqual([{ ingest: ['e5', 'e6'], replayed: true, dropped: 0 }]);
  });
});

describe('fetchDueSubscription', () => {
  const clock = { now: () => NOW };
  function store(calls: unknown[]): RemoteSubscriptionStore {
    return {
      open: async () => undefined,
      close: async (id) => {
        calls.push({ close: id });
        return undefined;
      },
      closeRelay: async () => [],
      claimDue: async () => [],
      nextDueAt: async () => undefined,
      settle: async (id, state, nextFetchAt) => {
        calls.push({ settle: id, cursor: state.cursor, online: state.online, nextFetchAt });
      },
    };
  }

  it('stores the new cursor, due again one interval later', async () => {
    const calls: unknown[] = [];
    const fetched = await fetchDueSubscription(
      subscription(true),
      { line: line({ ok: true, events: [event('e5')], cursor: 5, dropped: 0 }), ingest: ingest([]), subscriptions: store(calls), clock },
      2_000,
    );
    expect(fetched).toEqual({ kind: 'settled' });
    expect(calls).toEqual([{ settle: 'sub_1', cursor: 5, online: true, nextFetchAt: new Date(NOW.getTime() + 2_000) }]);
  });

  it('stops fetching one that ended here and ends its watch there, saying when that relay did not', async () => {
    const calls: unknown[] = [];
    const offline = new Error('no answer');
    const ending: RemoteEventsLine = { ...line({ ok: true, events: [event('e5')], cursor: 5, dropped: 0 }), end: async () => Promise.reject(offline) };
    const fetched = await fetchDueSubscription(
      subscription(true),
      { line: ending, ingest: ingest([], undefined, true), subscriptions: store(calls), clock },
      2_000,
    );
    expect(fetched).toEqual({ kind: 'ended', endError: offline });
    expect(calls).toEqual([{ close: 'sub_1' }]);
  });

  it('keeps the cursor of a fetch that failed, due again one interval later, and throws', async () => {
    const calls: unknown[] = [];
    const failing = ingest([], new AppError('SERVICE_UNAVAILABLE', 'unavailable', 'down'));
    await expect(
      fetchDueSubscription(
        subscription(true),
        { line: line({ ok: true, events: [event('e5')], cursor: 5, dropped: 0 }), ingest: failing, subscriptions: store(calls), clock },
        2_000,
      ),
    ).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(calls).toEqual([{ settle: 'sub_1', cursor: 4, online: true, nextFetchAt: new Date(NOW.getTime() + 2_000) }]);
  });

  it('a batch that failed after its link_lost was written stores the link as down, so the next fetch replays it and restores the link', async () => {
    const calls: unknown[] = [];
    const failing = ingest([], new AppError('SERVICE_UNAVAILABLE', 'unavailable', 'down'));
    const outcome = { ok: true as const, events: [event('e5')], cursor: 105, dropped: 100 };
    await expect(
      fetchDueSubscription(subscription(true), { line: line(outcome), ingest: failing, subscriptions: store(calls), clock }, 2_000),
    ).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(calls).toEqual([{ settle: 'sub_1', cursor: 4, online: false, nextFetchAt: new Date(NOW.getTime() + 2_000) }]);
  });
});
