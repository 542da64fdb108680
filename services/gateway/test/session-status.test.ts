// A session's status in the words a person reads at a glance (issue 40, item 2), as read_session, the user API, the
// console and the CLI show it: from its state, what waits for its person there, and how its last turn ended.
import { describe, expect, it } from 'vitest';
import { TurnStatus } from '@relay/proto/relay/session/v1/session';
import { sessionStatus, type StatusFacts } from '../src/app/views/session-status.ts';

const resting: StatusFacts = { state: 'idle', cards: 0, asks: 0 };
const failed = { status: TurnStatus.TURN_STATUS_ERROR, error: 'the build broke' };
const stopped = { status: TurnStatus.TURN_STATUS_STOPPED, error: '' };

describe('sessionStatus', () => {
  it.each([
    ['no turn ended yet', resting, { name: 'idle', words: 'idle' }],
    ['its last turn done', { ...resting, lastTurn: { status: TurnStatus.TURN_STATUS_DONE, error: '' } }, { name: 'idle', words: 'idle' }],
    ['its last turn failed', { ...resting, lastTurn: failed }, { name: 'failed', words: 'failed: the build broke', error: 'the build broke' }],
    ['its last turn stopped', { ...resting, lastTurn: stopped }, { name: 'stopped', words: 'stopped' }],
  ])('reads a session at rest with %s', (_, facts, status) => {
    expect(sessionStatus(facts)).toEqual(status);
  });

  it.each([
    ['a new turn runs', { state: 'running_turn' as const, cards: 0, asks: 0 }, 'working'],
    ['background tasks run', { state: 'background_only' as const, cards: 0, asks: 0 }, 'working (background tasks)'],
    ['a card waits', { state: 'running_turn' as const, cards: 1, asks: 0 }, 'waiting for you (card)'],
    ['an ask waits', { state: 'idle' as const, cards: 0, asks: 1 }, 'waiting for you (ask)'],
  ])('lets failed and stopped give way once %s', (_, facts, words) => {
    expect(sessionStatus({ ...facts, lastTurn: failed }).words).toBe(words);
    expect(sessionStatus({ ...facts, lastTurn: stopped }).words).toBe(words);
  });

  it('shows the first line of a long error, cut at 120 characters, and keeps the whole in `error`', () => {
    const error = `${'x'.repeat(200)}\nat line 2`;
    const status = sessionStatus({ ...resting, lastTurn: { status: TurnStatus.TURN_STATUS_ERROR, error } });
    expect(status.words).toBe(`failed: ${'x'.repeat(119)}…`);
    expect(status.error).toBe(error);
  });

  it('counts what waits: "2 cards and 1 ask"', () => {
    expect(sessionStatus({ ...resting, cards: 2, asks: 1 })).toEqual({
      name: 'waiting_for_you',
      words: 'waiting for you (2 cards and 1 ask)',
      waitingFor: { cards: 2, asks: 1 },
    });
  });
});
