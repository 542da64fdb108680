import { describe, expect, it } from 'vitest';
import { formatTurn } from '../src/format-turn.ts';

const base = { session: 's1', message_id: 'm1', delivery: 'delivered' as const };

describe('formatTurn', () => {
  it('prints the reply with its model', () => {
    expect(formatTurn({ ...base, status: 'done', reply: { text: 'hello\nworld', model: 'script-1' } })).toBe('Reply (script-1):\nhello\nworld');
  });

  it('says why a turn failed, and that one was stopped', () => {
    expect(formatTurn({ ...base, status: 'error', error: 'boom' })).toBe('The turn failed: boom');
    expect(formatTurn({ ...base, status: 'stopped' })).toBe('The turn was stopped.');
  });

  it('lists the questions a session waits on', () => {
    const pendingQuestions = [{ id: 'card_1', kind: 'ask_user', question: 'Merge?', options: ['Merge', 'Wait'] }];
    expect(formatTurn({ ...base, status: 'waiting_for_answer', pendingQuestions })).toBe(
      'The session waits for your answer:\n  Merge? [Merge | Wait] (card card_1)',
    );
  });

  it('says how to look again at a turn still at work, with the note', () => {
    expect(formatTurn({ ...base, status: 'running', note: 'capped' })).toBe('The turn is running; look again with: relay session show s1\ncapped');
  });
});
