// The key of an external session's call (decisions.md, External sessions): the same call made again has the same
// key, however its arguments are ordered and however long it waits; anything else that differs gives another key.
import { describe, expect, it } from 'vitest';
import { callKeyOf } from '../src/domain/call-key.ts';
import { pendingNoteOf } from '../src/domain/pending-note.ts';

const subscribe = { action: 'subscribe', args: { sessions: ['s1', 's2'], events: ['turn_end'], quiet_hours: { from: '23:00', to: '06:00', tz: 'UTC' } } };
const card = 'Watch 2 sessions on desk';

describe('callKeyOf', () => {
  it('is the same for the same call, whatever the order of its arguments and its wait_seconds', () => {
    const reordered = {
      action: 'subscribe',
      args: { quiet_hours: { tz: 'UTC', to: '06:00', from: '23:00' }, events: ['turn_end'], sessions: ['s1', 's2'], wait_seconds: 30 },
    };
    expect(callKeyOf('sess', reordered, card)).toBe(callKeyOf('sess', subscribe, card));
    expect(callKeyOf('sess', subscribe, card)).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each([
    ['another session', () => callKeyOf('other', subscribe, card)],
    ['another action', () => callKeyOf('sess', { ...subscribe, action: 'unsubscribe' }, card)],
    ['another argument', () => callKeyOf('sess', { ...subscribe, args: { ...subscribe.args, sessions: ['s2', 's1'] } }, card)],
    ["another card of the same call (the loop guard's)", () => callKeyOf('sess', subscribe, 'Let the agent keep prompting other agents?')],
  ])('differs for %s', (_what, key) => {
    expect(key()).not.toBe(callKeyOf('sess', subscribe, card));
  });
});

describe('pendingNoteOf', () => {
  it('is absent while nothing waits', () => {
    expect(pendingNoteOf('sess', undefined)).toBeUndefined();
    expect(pendingNoteOf('sess', { count: 0, previews: [] })).toBeUndefined();
  });

  it('says how many wait, their first lines, and how to read them', () => {
    expect(pendingNoteOf('sess', { count: 2, previews: ['[relay event] a', '[relay event] b'] })).toEqual({
      count: 2,
      first: ['[relay event] a', '[relay event] b'],
      read: '2 messages wait in your conversation: read them with read_session on session sess (your own), or wait on it, which returns as soon as one arrives.',
    });
  });
});
