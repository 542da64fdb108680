import { describe, expect, it } from 'vitest';
import { ManualClock } from '@relay/clock';
import { AppError } from '@relay/errors';
import type { Session } from '../../src/domain/sessions/session.ts';
import type { Turn } from '../../src/domain/turns/turn.ts';
import { findWaitedTurn } from '../../src/app/turns/find-waited-turn.ts';
import { stopTurn } from '../../src/app/turns/stop-turn.ts';
import { TurnSignals } from '../../src/app/turns/turn-signals.ts';
import { waitForTurn, type WaitEvent } from '../../src/app/turns/wait-for-turn.ts';

const session = { id: 's-1', userId: 'u-1' } as Session;
const turn: Turn = {
  id: 't-1',
  sessionId: 's-1',
  messageId: 'm-1',
  status: 'running',
  mode: 'agent',
  provenance: null,
  senderSessionId: null,
  replyText: '',
  replyModel: '',
  error: '',
  inFlight: '',
  pendingQuestions: [],
  stopRequested: false,
  queuedAt: new Date('2026-11-30T10:00:00Z'),
  startedAt: null,
  endedAt: null,
};

function deps(stopped = true) {
  const stops: string[] = [];
  return {
    stops,
    sessions: { findSession: async (id: string) => (id === session.id ? session : undefined) },
    turns: {
      requestStop: async (sessionId: string) => {
        stops.push(sessionId);
        return stopped;
      },
      findTurnByMessage: async (messageId: string) => (messageId === turn.messageId ? turn : undefined),
    },
  };
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof AppError)) throw new Error('expected an AppError');
  return error.code;
}

describe('stopTurn', () => {
  it('asks the session’s turn to stop and says whether one was running or queued', async () => {
    const d = deps(true);
    expect(await stopTurn(d, { userId: 'u-1', callerSessionId: 'other', sessionId: 's-1' })).toBe(true);
    expect(await stopTurn(deps(false), { userId: 'u-1', callerSessionId: '', sessionId: 's-1' })).toBe(false);
    expect(d.stops).toEqual(['s-1']);
  });

  it('refuses the caller’s own conversation (FORBIDDEN) and sessions of others or none (NOT_FOUND), stopping nothing', async () => {
    const d = deps();
    expect(await codeOf(stopTurn(d, { userId: 'u-1', callerSessionId: 's-1', sessionId: 's-1' }))).toBe('REMOTE_RELAY_FORBIDDEN');
    expect(await codeOf(stopTurn(d, { userId: 'u-2', callerSessionId: '', sessionId: 's-1' }))).toBe('REMOTE_RELAY_NOT_FOUND');
    expect(await codeOf(stopTurn(d, { userId: 'u-1', callerSessionId: '', sessionId: 's-9' }))).toBe('REMOTE_RELAY_NOT_FOUND');
    expect(d.stops).toEqual([]);
  });
});

describe('findWaitedTurn', () => {
  it('finds the turn the message started in that session of that user', async () => {
    expect(await findWaitedTurn(deps(), { userId: 'u-1', callerSessionId: '', sessionId: 's-1', messageId: 'm-1' })).toBe(turn);
  });

  it.each([
    [{ userId: 'u-1', callerSessionId: 's-1', sessionId: 's-1', messageId: 'm-1' }, 'REMOTE_RELAY_FORBIDDEN'],
    [{ userId: 'u-2', callerSessionId: '', sessionId: 's-1', messageId: 'm-1' }, 'REMOTE_RELAY_NOT_FOUND'],
    [{ userId: 'u-1', callerSessionId: '', sessionId: 's-1', messageId: 'm-9' }, 'REMOTE_RELAY_NOT_FOUND'],
    [{ userId: 'u-1', callerSessionId: '', sessionId: 's-9', messageId: 'm-1' }, 'REMOTE_RELAY_NOT_FOUND'],
  ])('refuses %j with %s', async (request, code) => {
    expect(await codeOf(findWaitedTurn(deps(), request))).toBe(code);
  });
});

describe('waitForTurn', () => {
  async function collect(events: AsyncGenerator<WaitEvent>): Promise<WaitEvent[]> {
    const all: WaitEvent[] = [];
    for await (const event of events) all.push(event);
    return all;
  }

  it('returns at once for a turn that has ended, or when nothing is to be waited', async () => {
    const signals = new TurnSignals();
    const clock = new ManualClock('2026-11-30T10:00:00Z');
    const store = { findTurn: async () => turn };
    const done = { ...turn, status: 'done' as const, replyText: 'ok' };
    expect(await collect(waitForTurn({ turns: store, signals, clock }, done, 60, new AbortController().signal))).toEqual([{ kind: 'result', turn: done }]);
    expect(await collect(waitForTurn({ turns: store, signals, clock }, turn, 0, new AbortController().signal))).toEqual([{ kind: 'result', turn }]);
  });

  it('returns when turn_ended is signalled, and the running turn when relay time runs out', async () => {
    const signals = new TurnSignals();
    const clock = new ManualClock('2026-11-30T10:00:00Z');
    let current: Turn = turn;
    const deps = { turns: { findTurn: async () => current }, signals, clock, pollIntervalMs: 60_000, progressIntervalMs: 60_000 };

    const ending = collect(waitForTurn(deps, turn, 60, new AbortController().signal));
    await new Promise((resolve) => setImmediate(resolve));
    current = { ...turn, status: 'done', replyText: 'finished' };
    signals.ended(turn.id);
    expect(await ending).toEqual([{ kind: 'result', turn: current }]);

    current = turn;
    const timingOut = collect(waitForTurn(deps, turn, 60, new AbortController().signal));
    await new Promise((resolve) => setImmediate(resolve));
    clock.advance(60_000);
    expect(await timingOut).toEqual([{ kind: 'result', turn }]);
  });

  it('ends without a result when the caller goes away', async () => {
    const signals = new TurnSignals();
    const abort = new AbortController();
    const waiting = collect(
      waitForTurn({ turns: { findTurn: async () => turn }, signals, clock: new ManualClock('2026-11-30T10:00:00Z') }, turn, 60, abort.signal),
    );
    await new Promise((resolve) => setImmediate(resolve));
    abort.abort();
    expect(await waiting).toEqual([]);
  });
});
