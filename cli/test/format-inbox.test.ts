import { describe, expect, it } from 'vitest';
import { formatInbox } from '../src/format-inbox.ts';

const pending = { status: 'pending' as const, createdAt: null };

describe('formatInbox', () => {
  it('says when nothing waits', () => {
    expect(formatInbox({ asks: [], cards: [], more: false })).toBe('Inbox: nothing waits for you.');
  });

  it('lists cards and asks with their ids and how to answer them', () => {
    const text = formatInbox({
      cards: [
        {
          ...pending,
          id: 'card_1',
          sessionId: 's1',
          kind: 'approval',
          title: 'Start a session on desk: "Worker"',
          lines: ['Provider: script'],
          options: [],
          answer: '',
          choices: [],
          decidedAt: null,
        },
      ],
      asks: [
        {
          ...pending,
          id: 'ask_1',
          sessionId: 's2',
          askedBy: 's2',
          question: 'Ship tonight?',
          options: ['Tonight', 'Wait'],
          recommendation: 'Wait',
          detail: 'The review is open.',
          answer: '',
          choice: '',
          via: '',
          endedAt: null,
        },
      ],
      more: false,
    });
    expect(text.split('\n')).toEqual([
      'card_1  approve in session s1: Start a session on desk: "Worker"',
      '    Provider: script',
      '    relay allow card_1  ·  relay deny card_1',
      'ask_1  ask in session s2: Ship tonight?',
      '    The review is open.',
      '    options: Tonight | Wait (recommended: Wait)',
      '    relay answer ask_1 TEXT [--choice C]  ·  relay answer ask_1 --dismiss',
    ]);
  });

  it('says so under the list when more waits than the Inbox lists', () => {
    const card = {
      ...pending,
      id: 'card_1',
      sessionId: 's1',
      kind: 'question' as const,
      title: 'Which?',
      lines: [],
      options: [],
      answer: '',
      choices: [],
      decidedAt: null,
    };
    expect(
      formatInbox({ asks: [], cards: [card], more: true })
        .split('\n')
        .at(-1),
    ).toBe('More waits than shows here: the newest 500 cards and 500 asks do; older ones show as you decide these.');
    expect(formatInbox({ asks: [], cards: [card], more: false })).not.toContain('More waits');
  });
});
