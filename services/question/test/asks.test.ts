import { describe, expect, it } from 'vitest';
import type { Ask } from '../src/domain/ask-entities.ts';
import { admitAsk, applyAnswer, applyWithdraw, AskLimits, buildAsk, isRecent, type AskInput } from '../src/domain/asks.ts';

const NOW = new Date('2026-11-30T10:00:00.000Z');

const input = (fields: Partial<AskInput> = {}): AskInput => ({
  userId: 'u1',
  askingSessionId: 's1',
  aboutSessionId: '',
  question: 'Ship tonight?',
  options: ['Tonight', 'Wait'],
  recommendation: 'Wait',
  detail: 'The review covers the index change.',
  ...fields,
});

const pending = (fields: Partial<AskInput> = {}): Ask => buildAsk(input(fields), 'ask_1', NOW);

describe('buildAsk', () => {
  it('makes a pending ask about the asking conversation when no session is named', () => {
    expect(pending()).toMatchObject({
      id: 'ask_1',
      status: 'pending',
      askingSessionId: 's1',
      aboutSessionId: 's1',
      options: ['Tonight', 'Wait'],
      createdAt: NOW,
    });
  });

  it('is about the named session when asked on its behalf', () => {
    expect(pending({ aboutSessionId: 's2' }).aboutSessionId).toBe('s2');
  });

  it.each([
    [{ question: '  ' }, 'question'],
    [{ question: 'x'.repeat(AskLimits.QUESTION_CHARS + 1) }, 'question'],
    [{ options: ['A', 'A'] }, 'options'],
    [{ options: [''] }, 'options'],
    [{ options: Array.from({ length: 21 }, (_, i) => `o${i}`) }, 'options'],
    [{ detail: 'x'.repeat(AskLimits.DETAIL_CHARS + 1) }, 'detail'],
    [{ userId: '' }, 'user_id'],
    [{ askingSessionId: '' }, 'asking_session_id'],
  ])('refuses %j naming %s', (fields, field) => {
    expect(() => buildAsk(input(fields), 'ask_1', NOW)).toThrow(
      expect.objectContaining({ code: 'REMOTE_RELAY_INVALID_INPUT', details: expect.objectContaining({ field }) }),
    );
  });
});

describe('admitAsk', () => {
  it('admits up to 20 pending per asking conversation', () => {
    expect(() => admitAsk(pending(), { asking: 19, about: 19 })).not.toThrow();
    expect(() => admitAsk(pending(), { asking: 20, about: 20 })).toThrow(expect.objectContaining({ code: 'REMOTE_RELAY_QUESTION_LIMIT' }));
  });

  it('admits up to 20 pending about another session', () => {
    const onBehalf = pending({ aboutSessionId: 's2' });
    expect(() => admitAsk(onBehalf, { asking: 0, about: 19 })).not.toThrow();
    expect(() => admitAsk(onBehalf, { asking: 0, about: 20 })).toThrow(expect.objectContaining({ code: 'REMOTE_RELAY_QUESTION_LIMIT' }));
  });
});

describe('applyAnswer', () => {
  const answer = (fields: Partial<Parameters<typeof applyAnswer>[1]> = {}) =>
    applyAnswer(pending(), { userId: 'u1', askId: 'ask_1', decision: 'answer', answer: '', choice: '', via: 'desk', ...fields }, NOW);

  it('answers with a choice among the options and the text', () => {
    expect(answer({ choice: 'Wait', answer: ' after the review ' })).toMatchObject({
      status: 'answered',
      choice: 'Wait',
      answer: 'after the review',
      via: 'desk',
      endedAt: NOW,
    });
  });

  it('dismisses', () => {
    expect(answer({ decision: 'dismiss' })).toMatchObject({ status: 'dismissed', answer: '', choice: '', endedAt: NOW });
  });

  it("answers another user's ask REMOTE_RELAY_NOT_FOUND", () => {
    expect(() => answer({ userId: 'u2', choice: 'Wait' })).toThrow(expect.objectContaining({ code: 'REMOTE_RELAY_NOT_FOUND' }));
  });

  it.each([
    [{}, 'answer'],
    [{ choice: 'Never' }, 'choice'],
    [{ decision: 'allow', answer: 'x' }, 'decision'],
    [{ decision: 'dismiss', answer: 'x' }, 'answer'],
  ])('refuses %j naming %s', (fields, field) => {
    expect(() => answer(fields)).toThrow(expect.objectContaining({ code: 'REMOTE_RELAY_INVALID_INPUT', details: expect.objectContaining({ field }) }));
  });

  it('refuses an ask that is no longer pending', () => {
    const withdrawn = applyWithdraw(pending(), 'u1', 's1', NOW);
    expect(() => applyAnswer(withdrawn, { userId: 'u1', askId: 'ask_1', decision: 'dismiss', answer: '', choice: '', via: 'desk' }, NOW)).toThrow(
      expect.objectContaining({ code: 'REMOTE_RELAY_INVALID_INPUT' }),
    );
  });
});

describe('applyWithdraw', () => {
  it('withdraws for the conversation that asked', () => {
    expect(applyWithdraw(pending(), 'u1', 's1', NOW)).toMatchObject({ status: 'withdrawn', endedAt: NOW });
  });

  it('refuses another conversation (FORBIDDEN) and another user (NOT_FOUND)', () => {
    expect(() => applyWithdraw(pending(), 'u1', 's9', NOW)).toThrow(expect.objectContaining({ code: 'REMOTE_RELAY_FORBIDDEN' }));
    expect(() => applyWithdraw(pending(), 'u2', 's1', NOW)).toThrow(expect.objectContaining({ code: 'REMOTE_RELAY_NOT_FOUND' }));
  });
});

describe('isRecent', () => {
  it('keeps pending asks, and ended ones for a day', () => {
    const ended = applyWithdraw(pending(), 'u1', 's1', NOW);
    expect(isRecent(pending(), new Date(NOW.getTime() + 30 * 86_400_000))).toBe(true);
    expect(isRecent(ended, new Date(NOW.getTime() + 86_400_000))).toBe(true);
    expect(isRecent(ended, new Date(NOW.getTime() + 86_400_001))).toBe(false);
  });
});
