import { describe, expect, it } from 'vitest';
import {
  activeStatusFor,
  endTurnAs,
  isLeaseExpired,
  leaseUntil,
  planClaim,
  RELAY_STOPPED_ERROR,
  sessionStateFor,
  turnDeadline,
  turnEndedText,
  withoutQuestion,
  withQuestion,
} from '../../src/domain/turns/turn-rules.ts';
import { isTurnOver } from '../../src/domain/turns/turn.ts';

const NOW = new Date('2026-11-30T10:00:00.000Z');
const runnable = { stopRequested: false, sessionArchived: false, provider: 'script' };
const onlyScript = (provider: string) => provider === 'script';

describe('leases', () => {
  it('a claim holds the turn for 30 s of relay time by default, or for the given lease', () => {
    expect(leaseUntil(NOW)).toEqual(new Date('2026-11-30T10:00:30.000Z'));
    expect(leaseUntil(NOW, 5_000)).toEqual(new Date('2026-11-30T10:00:05.000Z'));
  });

  it.each([
    ['2026-11-30T10:00:00.001Z', false],
    ['2026-11-30T10:00:00.000Z', false],
    ['2026-11-30T09:59:59.999Z', true],
  ])('a lease until %s has expired at 10:00:00: %s', (until, expired) => {
    expect(isLeaseExpired(new Date(until), NOW)).toBe(expired);
  });

  it('an active turn without a lease counts as expired', () => {
    expect(isLeaseExpired(null, NOW)).toBe(true);
  });
});

describe('Max turn duration', () => {
  it('a turn overruns its start plus the relay setting', () => {
    expect(turnDeadline(NOW, 60)).toEqual(new Date('2026-11-30T11:00:00.000Z'));
    expect(turnDeadline(NOW, 1)).toEqual(new Date('2026-11-30T10:01:00.000Z'));
  });

  it('says so when it ends a turn', () => {
    expect(endTurnAs({ kind: 'overran', maxTurnMinutes: 1 })).toEqual({
      status: 'error',
      replyText: '',
      replyModel: '',
      error: "the turn ran longer than this relay's Max turn duration (1 minute)",
    });
    expect(endTurnAs({ kind: 'overran', maxTurnMinutes: 45 }).error).toContain('(45 minutes)');
  });
});

describe('planClaim', () => {
  it('runs a claimed turn under a lease from now', () => {
    expect(planClaim(runnable, { now: NOW, canRun: onlyScript })).toEqual({
      kind: 'run',
      startedAt: NOW,
      leaseUntil: new Date('2026-11-30T10:00:30.000Z'),
    });
    expect(planClaim(runnable, { now: NOW, canRun: onlyScript, leaseMs: 1_000 })).toMatchObject({ leaseUntil: new Date('2026-11-30T10:00:01.000Z') });
  });

  it('ends a turn stopped before it started, or in an archived session, as stopped', () => {
    expect(planClaim({ ...runnable, stopRequested: true }, { now: NOW, canRun: onlyScript })).toEqual({
      kind: 'end',
      ending: { status: 'stopped', replyText: '', replyModel: '', error: '' },
    });
    expect(planClaim({ ...runnable, sessionArchived: true }, { now: NOW, canRun: onlyScript })).toMatchObject({ kind: 'end', ending: { status: 'stopped' } });
  });

  it('ends a turn of a provider this relay cannot run as an error that names it', () => {
    expect(planClaim({ ...runnable, provider: 'claude' }, { now: NOW, canRun: onlyScript })).toEqual({
      kind: 'end',
      ending: { status: 'error', replyText: '', replyModel: '', error: 'provider "claude" does not run turns on this relay' },
    });
  });
});

describe('how turns end', () => {
  it('a reply is done with its text and model', () => {
    expect(endTurnAs({ kind: 'replied', text: 'All green.', model: 'script-1' })).toEqual({
      status: 'done',
      replyText: 'All green.',
      replyModel: 'script-1',
      error: '',
    });
  });

  it('a failure is an error with its message; a dead or stopping relay says to send it again', () => {
    expect(endTurnAs({ kind: 'failed', error: 'out of coffee' })).toMatchObject({ status: 'error', error: 'out of coffee' });
    expect(endTurnAs({ kind: 'relay_stopped' })).toMatchObject({ status: 'error', error: RELAY_STOPPED_ERROR });
    expect(RELAY_STOPPED_ERROR).toBe('the relay stopped while this turn ran; send it again');
  });

  it('turn_ended carries the first 500 characters of the reply, or the error', () => {
    const long = 'x'.repeat(499) + '😀' + 'tail';
    expect(turnEndedText(endTurnAs({ kind: 'replied', text: long, model: 'm' }))).toBe('x'.repeat(499) + '😀');
    expect(turnEndedText(endTurnAs({ kind: 'failed', error: 'boom' }))).toBe('boom');
    expect(turnEndedText(endTurnAs({ kind: 'stopped' }))).toBe('');
  });

  it('only done, error and stopped are over', () => {
    expect(['queued', 'running', 'waiting_for_answer', 'done', 'error', 'stopped'].filter((s) => isTurnOver(s as never))).toEqual(['done', 'error', 'stopped']);
  });
});

describe('session state and questions', () => {
  it('a session runs a turn while one is unfinished, and is idle after the last', () => {
    expect(sessionStateFor(2)).toBe('running_turn');
    expect(sessionStateFor(0)).toBe('idle');
  });

  it('a turn waits for an answer while one of its own cards is pending', () => {
    const card = { id: 'c1', kind: 'ask_user' as const, question: 'Ship?', options: ['Yes'] };
    const ask = { id: 'q1', kind: 'ask' as const, question: 'FYI?', options: [] };
    const raised = withQuestion([ask], card);
    expect(raised).toEqual([ask, card]);
    expect(activeStatusFor(raised)).toBe('waiting_for_answer');
    expect(withQuestion(raised, card)).toEqual([ask, card]);
    expect(activeStatusFor(withoutQuestion(raised, 'c1'))).toBe('running');
    expect(activeStatusFor([])).toBe('running');
  });
});
