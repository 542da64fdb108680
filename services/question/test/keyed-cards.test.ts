import { describe, expect, it } from 'vitest';
import type { Card, CardStatus } from '../src/domain/entities.ts';
import { keyedDecisionsSince, reusableKeyedCard, type KeyedCard } from '../src/domain/keyed-cards.ts';

const NOW = new Date('2026-12-02T04:00:00.000Z');
const DAY_MS = 86_400_000;
const ago = (ms: number) => new Date(NOW.getTime() - ms);

function earlier(id: string, status: CardStatus, fields: { createdAt?: Date; decidedAt?: Date; used?: boolean } = {}): KeyedCard {
  const card: Card = {
    id,
    userId: 'u1',
    sessionId: 'ext-1',
    kind: 'approval',
    title: 'Start a session?',
    lines: [],
    options: [],
    status,
    answer: '',
    choices: [],
    createdAt: fields.createdAt ?? ago(60_000),
    decidedAt: status === 'pending' ? undefined : (fields.decidedAt ?? ago(30_000)),
    callKey: 'fp-create',
  };
  return { card, used: fields.used ?? false };
}

describe('reusableKeyedCard (the same external call made again)', () => {
  it('gives the call its pending card, however old', () => {
    expect(reusableKeyedCard([earlier('card_a', 'pending', { createdAt: ago(30 * DAY_MS) })], NOW)?.id).toBe('card_a');
  });

  it('gives it an allow or a deny no call has taken, decided within a day', () => {
    expect(reusableKeyedCard([earlier('card_a', 'allowed')], NOW)?.id).toBe('card_a');
    expect(reusableKeyedCard([earlier('card_b', 'denied', { decidedAt: ago(DAY_MS) })], NOW)?.id).toBe('card_b');
  });

  it('raises anew after a used decision, one older than a day, or a card answered, dismissed or cancelled', () => {
    expect(reusableKeyedCard([earlier('card_a', 'allowed', { used: true })], NOW)).toBeUndefined();
    expect(reusableKeyedCard([earlier('card_b', 'denied', { decidedAt: ago(DAY_MS + 1) })], NOW)).toBeUndefined();
    for (const status of ['answered', 'dismissed', 'cancelled'] as const) expect(reusableKeyedCard([earlier('card_c', status)], NOW)).toBeUndefined();
    expect(reusableKeyedCard([], NOW)).toBeUndefined();
  });

  it('takes the newest reusable card, passing over newer ones it may not reuse', () => {
    const cards = [
      earlier('card_old', 'allowed', { createdAt: ago(50_000) }),
      earlier('card_newer', 'denied', { createdAt: ago(40_000) }),
      earlier('card_newest', 'cancelled', { createdAt: ago(10_000) }),
    ];
    expect(reusableKeyedCard(cards, NOW)?.id).toBe('card_newer');
    expect(reusableKeyedCard(cards.reverse(), NOW)?.id).toBe('card_newer');
  });

  it('asks the store only for decisions made within the day before now', () => {
    expect(keyedDecisionsSince(NOW)).toEqual(ago(DAY_MS));
  });
});
