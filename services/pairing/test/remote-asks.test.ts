// Polling an ask kept on a paired relay (spec, ask; decisions.md, Limits): every 5 s while it is open, every 30 s
// while that relay does not answer; an answer or a dismissal is passed on once and the polling stops; a withdrawn
// or ended ask, or one that relay no longer has, stops it too.
import { AppError } from '@relay/errors';
import { describe, expect, it } from 'vitest';
import { ASK_POLL_MS, ASK_POLL_OFFLINE_MS, planAskPoll, type RemoteAskView } from '../src/domain/remote-asks.ts';
import { pollDueAsk, pollRemoteAsk } from '../src/app/remote-asks.ts';
import type { RemoteAskStore, RemoteAsksLine } from '../src/app/remote-ports.ts';

const NOW = new Date('2026-11-30T12:00:00.000Z');
const at = (ms: number) => new Date(NOW.getTime() + ms);

function seen(status: string, fields: Partial<RemoteAskView> = {}): RemoteAskView {
  return {
    id: 'ask_1',
    aboutSessionId: '77aa',
    question: 'Ship?',
    options: ['Tonight', 'Wait'],
    status,
    answer: '',
    choice: '',
    via: '',
    createdAt: NOW,
    endedAt: undefined,
    ...fields,
  };
}

describe('planAskPoll', () => {
  it('polls again in 5 s while the ask is open', () => {
    expect(ASK_POLL_MS).toBe(5_000);
    expect(planAskPoll(seen('pending'), NOW)).toEqual({ kind: 'again', online: true, nextPollAt: at(5_000) });
  });

  it('polls again in 30 s while that relay does not answer', () => {
    expect(ASK_POLL_OFFLINE_MS).toBe(30_000);
    expect(planAskPoll(undefined, NOW)).toEqual({ kind: 'again', online: false, nextPollAt: at(30_000) });
  });

  it('passes on an answer or a dismissal', () => {
    expect(planAskPoll(seen('answered'), NOW)).toEqual({ kind: 'answered' });
    expect(planAskPoll(seen('dismissed'), NOW)).toEqual({ kind: 'answered' });
  });

  it('stops for a withdrawn or ended ask', () => {
    expect(planAskPoll(seen('withdrawn'), NOW)).toEqual({ kind: 'stop' });
    expect(planAskPoll(seen('ended'), NOW)).toEqual({ kind: 'stop' });
  });
});

describe('pollRemoteAsk', () => {
  const ask = { relay: 'build-box', id: 'ask_1', userId: 'u1', askingSessionId: 'c0de', online: true };
  const intervals = { onlineMs: ASK_POLL_MS, offlineMs: ASK_POLL_OFFLINE_MS };
  const line = (poll: RemoteAsksLine['poll']): RemoteAsksLine => ({
    open: async () => seen('pending'),
    list: async () => [],
    withdraw: async () => seen('withdrawn'),
    poll,
  });

  it('tells the asking conversation the answer, via the relay that kept it', async () => {
    const published: unknown[] = [];
    const plan = await pollRemoteAsk(
      ask,
      {
        line: line(async () => seen('answered', { choice: 'Wait', via: 'build-box' })),
        sink: { publish: async (answer) => void published.push(answer) },
        intervals,
      },
      NOW,
    );
    expect(plan).toEqual({ kind: 'answered' });
    expect(published).toEqual([{ userId: 'u1', askingSessionId: 'c0de', askId: 'ask_1', answer: '', choice: 'Wait', dismissed: false, via: 'build-box' }]);
  });

  it('tells a dismissal as dismissed, via the relay when it names none', async () => {
    const published: { dismissed: boolean; via: string }[] = [];
    await pollRemoteAsk(ask, { line: line(async () => seen('dismissed')), sink: { publish: async (answer) => void published.push(answer) }, intervals }, NOW);
    expect(published).toMatchObject([{ dismissed: true, via: 'build-box' }]);
  });

  it('stops, telling nothing, when that relay no longer has the ask', async () => {
    const published: unknown[] = [];
    const gone = line(async () => {
      throw new AppError('REMOTE_RELAY_NOT_FOUND', 'not_found', 'no such ask');
    });
    expect(await pollRemoteAsk(ask, { line: gone, sink: { publish: async (answer) => void published.push(answer) }, intervals }, NOW)).toEqual({
      kind: 'stop',
    });
    expect(published).toEqual([]);
  });
});

describe('pollDueAsk', () => {
  const ask = { relay: 'build-box', id: 'ask_1', userId: 'u1', askingSessionId: 'c0de', online: false };
  const intervals = { onlineMs: ASK_POLL_MS, offlineMs: ASK_POLL_OFFLINE_MS };
  const clock = { now: () => NOW };
  const sink = { publish: async () => undefined };
  const line = (poll: RemoteAsksLine['poll']): RemoteAsksLine => ({
    open: async () => seen('pending'),
    list: async () => [],
    withdraw: async () => seen('withdrawn'),
    poll,
  });
  function asks(calls: unknown[]): RemoteAskStore {
    return {
      keep: async () => undefined,
      drop: async (relay, id) => void calls.push({ drop: `${relay}/${id}` }),
      dropRelay: async () => 0,
      claimDue: async () => [],
      nextDueAt: async () => undefined,
      settle: async (relay, id, online, nextPollAt) => void calls.push({ settle: `${relay}/${id}`, online, nextPollAt }),
    };
  }

  it('stores when to poll an open ask again', async () => {
    const calls: unknown[] = [];
    await pollDueAsk(ask, { line: line(async () => seen('pending')), sink, asks: asks(calls), clock, intervals });
    expect(calls).toEqual([{ settle: 'build-box/ask_1', online: true, nextPollAt: at(5_000) }]);
  });

  it('stops polling an answered ask', async () => {
    const calls: unknown[] = [];
    await pollDueAsk(ask, { line: line(async () => seen('answered', { answer: 'yes' })), sink, asks: asks(calls), clock, intervals });
    expect(calls).toEqual([{ drop: 'build-box/ask_1' }]);
  });

  it('polls a failed poll again after the online interval, as it stood, and throws', async () => {
    const calls: unknown[] = [];
    const failing = line(async () => {
      throw new Error('database away');
    });
    await expect(pollDueAsk(ask, { line: failing, sink, asks: asks(calls), clock, intervals })).rejects.toThrow();
    expect(calls).toEqual([{ settle: 'build-box/ask_1', online: false, nextPollAt: at(5_000) }]);
  });
});
