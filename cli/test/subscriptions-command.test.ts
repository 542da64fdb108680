import { describe, expect, it } from 'vitest';
import { formatSubscriptions } from '../src/commands/subscriptions.ts';
import { parseCommand } from '../src/parse-command.ts';

describe('relay subscriptions', () => {
  it.each([
    [['subscriptions', 's1'], { kind: 'subscriptions', sessionId: 's1', json: false }],
    [
      ['subscriptions', 's1', '--unsubscribe', 'sub_ab12cd34ef', '--json'],
      { kind: 'subscriptions', sessionId: 's1', unsubscribe: 'sub_ab12cd34ef', json: true },
    ],
  ])('parses %j', (argv, expected) => {
    expect(parseCommand(argv)).toEqual(expected);
  });

  it('needs the watching session', () => {
    expect(() => parseCommand(['subscriptions'])).toThrow('relay subscriptions needs the watching session: relay subscriptions SESSION');
  });

  it('lists the subscriptions as an aligned table: what each watches, its events, what it holds or why it ended', () => {
    const text = formatSubscriptions([
      {
        id: 'sub_a',
        sessions: [{ id: '3f9c', title: 'Review: server/' }],
        events: ['turn_end', 'error'],
        once: false,
        stalledMinutes: 30,
        heldCount: 2,
        nextDeliveryAt: '2026-10-24T04:00:00.000Z',
      },
      {
        id: 'sub_b',
        relay: 'build-box',
        scope: 'all',
        sessions: 'all',
        events: ['question_asked'],
        once: true,
        stalledMinutes: 30,
        ended: true,
        reason: 'unsubscribed',
      },
    ]);
    expect(text.split('\n')).toEqual([
      'ID     WATCHES                    EVENTS                 STATE',
      'sub_a  "Review: server/"          turn_end, error        2 held, next 2026-10-24T04:00:00.000Z',
      'sub_b  all sessions on build-box  question_asked (once)  ended (unsubscribed)',
    ]);
    expect(formatSubscriptions([])).toBe('No subscriptions.');
  });
});
