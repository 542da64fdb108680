// The owner's approval card a provider waits on (ask-owner.ts): the answer itself, a withdrawn card as no answer, and
// on the turn's end the card withdrawn when the turn stopped but left pending when it is handed over to another
// replica (ADR 0034), so that replica waits on it and the owner's decision applies once.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '@relay/clock';
import { createLogger } from '@relay/telemetry';
import { askOwner, ownerAnswer } from '../../src/app/turns/ask-owner.ts';
import { TurnFailed, TurnHandedOver, type ProviderEvent, type TurnInput } from '../../src/app/turns/provider.ts';
import type { CardRequest, QuestionCards } from '../../src/app/turns/question-cards.ts';

const logger = createLogger({ name: 'ask-owner-test', level: 'silent' });
const session = { id: 's-1', userId: 'u-1', title: 'T', provider: 'openai', model: 'm-1', effort: '', mode: 'agent' as const, cwd: '/tmp' };
const text = { title: 'm-1 wants to run a command', lines: ['Command: touch x'] };

/** Cards decided by the test: each raise waits until answered, withdrawn, or the signal aborts. */
class Cards implements QuestionCards {
  raised: CardRequest[] = [];
  cancelled: string[] = [];
  readonly #settle = new Map<string, { resolve: (answer: string) => void; reject: (error: Error) => void }>();
  async raise(input: CardRequest): Promise<string> {
    this.raised.push(input);
    return `card-${this.raised.length}`;
  }
  awaited: string[] = [];
  awaitAnswer(cardId: string, signal: AbortSignal): Promise<string> {
    this.awaited.push(cardId);
    return new Promise((resolve, reject) => {
      this.#settle.set(cardId, { resolve, reject });
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  }
  async cancel(sessionId: string): Promise<void> {
    this.cancelled.push(sessionId);
  }
  answer(cardId: string, answer: string): void {
    this.#settle.get(cardId)!.resolve(answer);
  }
  withdraw(cardId: string): void {
    this.#settle.get(cardId)!.reject(new TurnFailed('the card was withdrawn before the user answered'));
  }
}

function turn(abort = new AbortController()) {
  const events: ProviderEvent[] = [];
  const input: TurnInput = {
    session,
    message: { id: 'msg-1', text: 'hi' },
    token: 'rly_s_test',
    signal: abort.signal,
    clock: new ManualClock('2026-12-07T10:00:00Z'),
    emit: async (event) => void events.push(event),
  };
  return { input, events, abort };
}

/** Until the provider waits on its `count`th card. */
const untilWaiting = async (cards: Cards, count = 1) => {
  while (cards.awaited.length < count) await new Promise((resolve) => setTimeout(resolve, 1));
};

describe('ownerAnswer and askOwner', () => {
  it("answers the owner's decision, the card raised in the turn's session under its raise id; Allow only is askOwner's true", async () => {
    const cards = new Cards();
    const { input, events } = turn();
    const denied = ownerAnswer(input, cards, text, logger, 'msg-1:step');
    await untilWaiting(cards);
    cards.answer('card-1', 'Deny');
    expect(await denied).toBe('Deny');
    expect(cards.raised[0]).toMatchObject({ kind: 'approval', userId: 'u-1', sessionId: 's-1', raiseId: 'msg-1:step', ...text });
    expect(events.map((event) => event.type)).toEqual(['question_raised', 'question_answered']);
    const allowed = askOwner(input, cards, text, logger);
    await untilWaiting(cards, 2);
    cards.answer('card-2', 'Allow');
    expect(await allowed).toBe(true);
  });

  it('a card withdrawn while the turn runs on is no answer', async () => {
    const cards = new Cards();
    const { input } = turn();
    const answer = ownerAnswer(input, cards, text, logger);
    await untilWaiting(cards);
    cards.withdraw('card-1');
    expect(await answer).toBeUndefined();
  });

  it("withdraws the session's card when the turn stops, and leaves it pending when the turn is handed over", async () => {
    const cards = new Cards();
    const stopped = turn();
    const waiting = ownerAnswer(stopped.input, cards, text, logger);
    await untilWaiting(cards);
    stopped.abort.abort(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
    expect(cards.cancelled).toEqual(['s-1']);

    const handed = turn();
    const held = ownerAnswer(handed.input, cards, text, logger);
    await untilWaiting(cards, 2);
    handed.abort.abort(new TurnHandedOver('handed over'));
    await expect(held).rejects.toBeInstanceOf(TurnHandedOver);
    expect(cards.cancelled).toEqual(['s-1']);
    // Nor does the turn say the card was answered: it still waits on it, on the replica that takes it over.
    expect(handed.events.map((event) => event.type)).toEqual(['question_raised']);
  });
});
