import { describe, expect, it } from 'vitest';
import { DEFAULT_EVENTS, parseSubscribe, requireRoomFor, takesEvent, type SubscribeInput } from './subscribe-rules.ts';

const base: SubscribeInput = {
  watcherSessionId: 'me',
  sessions: ['3f9c'],
  exclude: [],
  events: [],
  once: false,
  match: '',
  stalledMinutes: 0,
  heartbeatMinutes: 0,
  digestMinutes: 0,
  quietHours: null,
  resolved: [{ id: '3f9c', title: 'Review: server/' }],
};

function refusal(input: Partial<SubscribeInput>): { code: string; message: string } {
  try {
    parseSubscribe({ ...base, ...input });
  } catch (error) {
    return { code: (error as { code: string }).code, message: (error as Error).message };
  }
  throw new Error('not refused');
}

describe('parseSubscribe', () => {
  it('fills the defaults: the default events, stalledMinutes 15, no options', () => {
    expect(parseSubscribe(base)).toEqual({
      scope: 'sessions',
      sessions: [{ id: '3f9c', title: 'Review: server/' }],
      exclude: [],
      events: [...DEFAULT_EVENTS],
      once: false,
      match: '',
      stalledMinutes: 15,
      heartbeatMinutes: null,
      digestMinutes: null,
      quietHours: null,
    });
  });

  it('takes ["all"] with exclude, and canonical quiet hours', () => {
    const spec = parseSubscribe({
      ...base,
      sessions: ['all'],
      exclude: ['77aa'],
      digestMinutes: 30,
      quietHours: { from: '23:00', to: '06:00', tz: 'europe/berlin' },
    });
    expect(spec).toMatchObject({
      scope: 'all',
      sessions: [],
      exclude: ['77aa'],
      digestMinutes: 30,
      quietHours: { from: '23:00', to: '06:00', tz: 'Europe/Berlin' },
    });
  });

  it.each([
    [{ exclude: ['77aa'] }, 'REMOTE_RELAY_INVALID_INPUT', 'exclude goes with sessions ["all"] only; a list of sessions names what it watches.'],
    [
      { quietHours: { from: '7:00', to: '06:00', tz: 'UTC' } },
      'REMOTE_RELAY_INVALID_INPUT',
      'quiet_hours from and to must be times of day as "HH:MM" (00:00 to 23:59)',
    ],
    [{ quietHours: { from: '06:00', to: '06:00', tz: 'UTC' } }, 'REMOTE_RELAY_INVALID_INPUT', 'quiet_hours from and to must differ'],
    [{ events: ['turn_end', 'lunch'] }, 'REMOTE_RELAY_INVALID_INPUT', 'unknown event "lunch"'],
    [{ sessions: ['me'] }, 'REMOTE_RELAY_FORBIDDEN', 'never watched'],
    [{ sessions: ['beef'] }, 'REMOTE_RELAY_NOT_FOUND', 'No session beef'],
    [{ sessions: [] }, 'REMOTE_RELAY_INVALID_INPUT', 'subscribe needs sessions'],
    [{ digestMinutes: -5 }, 'REMOTE_RELAY_INVALID_INPUT', 'digest_minutes must be a whole number'],
  ])('refuses %j', (input, code, message) => {
    const refused = refusal(input as Partial<SubscribeInput>);
    expect(refused.code).toBe(code);
    expect(refused.message).toContain(message);
  });

  it('refuses an IANA-less tz with the spec sentence', () => {
    expect(refusal({ quietHours: { from: '23:00', to: '06:00', tz: 'Berlin' } }).message).toBe(
      'quiet_hours tz "Berlin" is not an IANA time zone (for example "Europe/Berlin", "America/New_York", "UTC")',
    );
  });
});

describe('requireRoomFor', () => {
  it('allows the 20th and refuses the 21st', () => {
    expect(() => requireRoomFor(19)).not.toThrow();
    expect(() => requireRoomFor(20)).toThrow(expect.objectContaining({ code: 'REMOTE_RELAY_SUBSCRIPTION_LIMIT' }));
  });
});

describe('takesEvent', () => {
  const list = { watcherSessionId: 'me', scope: 'sessions' as const, sessions: [{ id: 'a', title: 'A' }], exclude: [], events: [...DEFAULT_EVENTS], match: '' };
  it('takes a named event of a listed session, never of the watcher itself', () => {
    expect(takesEvent(list, 'a', 'turn_end', '')).toBe(true);
    expect(takesEvent(list, 'b', 'turn_end', '')).toBe(false);
    expect(takesEvent(list, 'a', 'task_finished', '')).toBe(false);
    expect(takesEvent({ ...list, scope: 'all', exclude: ['b'] }, 'me', 'turn_end', '')).toBe(false);
    expect(takesEvent({ ...list, scope: 'all', exclude: ['b'] }, 'b', 'turn_end', '')).toBe(false);
    expect(takesEvent({ ...list, scope: 'all', exclude: ['b'] }, 'c', 'turn_end', '')).toBe(true);
  });
  it('match looks in the text, case-insensitively', () => {
    expect(takesEvent({ ...list, match: 'deploy' }, 'a', 'turn_end', 'Deployed.')).toBe(true);
    expect(takesEvent({ ...list, match: 'deploy' }, 'a', 'turn_end', 'Done.')).toBe(false);
  });
});
