import { describe, expect, it } from 'vitest';
import { MessageDelivery, TurnStatus, type TurnResult } from '@relay/proto/relay/session/v1/session';
import { sessionUrl, shortId, turnFields, turnPhrase } from '../src/app/views/turn-result.ts';

const base: TurnResult = {
  sessionId: '3f9c2a1e-7b04-4c1d-9e55-0a1b2c3d4e5f',
  messageId: 'b41e0000-0000-4000-8000-000000000000',
  status: TurnStatus.TURN_STATUS_DONE,
  replyText: 'Yes. The deploy finished at 02:14 and the health check is green.',
  replyModel: 'script-1',
  error: '',
  pendingQuestions: [],
  delivery: MessageDelivery.MESSAGE_DELIVERY_DELIVERED,
};
const question = { id: 'card_1', kind: 'ask_user', question: 'Merge now?', options: ['Merge', 'Wait'] };

describe('turnFields', () => {
  it('carries the reply when done, in the spec order', () => {
    const fields = turnFields(base, undefined);
    expect(Object.keys(fields)).toEqual(['status', 'session', 'message_id', 'reply', 'delivery']);
    expect(fields).toEqual({
      status: 'done',
      session: base.sessionId,
      message_id: base.messageId,
      reply: { text: base.replyText, model: 'script-1' },
      delivery: 'delivered',
    });
  });

  it('carries the error when the turn failed, and no reply', () => {
    expect(
      turnFields({ ...base, status: TurnStatus.TURN_STATUS_ERROR, error: 'script: boom', delivery: MessageDelivery.MESSAGE_DELIVERY_FAILED }, undefined),
    ).toEqual({
      status: 'error',
      session: base.sessionId,
      message_id: base.messageId,
      error: 'script: boom',
      delivery: 'failed',
    });
  });

  it('carries pendingQuestions while the turn waits for an answer', () => {
    expect(turnFields({ ...base, status: TurnStatus.TURN_STATUS_WAITING_FOR_ANSWER, pendingQuestions: [question] }, undefined)).toMatchObject({
      status: 'waiting_for_answer',
      pendingQuestions: [question],
    });
  });

  it.each([
    ['queued', TurnStatus.TURN_STATUS_QUEUED, MessageDelivery.MESSAGE_DELIVERY_QUEUED, 'queued'],
    ['running', TurnStatus.TURN_STATUS_RUNNING, MessageDelivery.MESSAGE_DELIVERY_DELIVERED, 'delivered'],
    ['stopped', TurnStatus.TURN_STATUS_STOPPED, MessageDelivery.MESSAGE_DELIVERY_FAILED, 'failed'],
    ['running', TurnStatus.TURN_STATUS_UNSPECIFIED, MessageDelivery.MESSAGE_DELIVERY_DELIVERED, 'delivered'],
  ] as const)('carries only where it stands when %s', (name, status, delivery, deliveryName) => {
    expect(turnFields({ ...base, status, delivery, pendingQuestions: [question] }, undefined)).toEqual({
      status: name,
      session: base.sessionId,
      message_id: base.messageId,
      delivery: deliveryName,
    });
  });

  it.each([
    [TurnStatus.TURN_STATUS_QUEUED, 'queued'],
    [TurnStatus.TURN_STATUS_RUNNING, 'delivered'],
    [TurnStatus.TURN_STATUS_ERROR, 'failed'],
    [TurnStatus.TURN_STATUS_STOPPED, 'delivered'],
  ] as const)('reads the delivery off the status from a session service that predates it (%s → %s)', (status, delivery) => {
    expect(turnFields({ ...base, status, delivery: MessageDelivery.MESSAGE_DELIVERY_UNSPECIFIED }, undefined).delivery).toBe(delivery);
  });

  it('adds openUrl when the relay has a public URL', () => {
    expect(turnFields(base, 'https://desk.example.com').openUrl).toBe(`https://desk.example.com/sessions/${base.sessionId}`);
    expect(turnFields(base, undefined)).not.toHaveProperty('openUrl');
  });
});

describe('turnPhrase', () => {
  it.each([
    [{ status: TurnStatus.TURN_STATUS_DONE }, 'done: "Yes. The deploy finished at 02:14 and the health check is green."'],
    [{ status: TurnStatus.TURN_STATUS_ERROR, error: 'script: boom\nat line 2' }, 'error: script: boom at line 2'],
    [{ status: TurnStatus.TURN_STATUS_STOPPED }, 'stopped'],
    [{ status: TurnStatus.TURN_STATUS_WAITING_FOR_ANSWER, pendingQuestions: [question] }, 'waiting for an answer to "Merge now?"'],
    [{ status: TurnStatus.TURN_STATUS_QUEUED }, `queued behind another turn; call wait with message_id ${base.messageId} for the reply`],
    [{ status: TurnStatus.TURN_STATUS_RUNNING }, `running; call wait with message_id ${base.messageId} for the reply`],
  ] as const)('%o → %s', (change, phrase) => {
    expect(turnPhrase({ ...base, ...change } as TurnResult)).toBe(phrase);
  });

  it('keeps a long reply to one short line', () => {
    const phrase = turnPhrase({ ...base, replyText: `${'word '.repeat(60)}\n\nmore` });
    expect(phrase.length).toBeLessThanOrEqual(90);
    expect(phrase).toMatch(/…"$/);
    expect(phrase).not.toContain('\n');
  });
});

describe('ids and links', () => {
  it('shortens a UUID to its first 8 characters, as the spec shows', () => {
    expect(shortId(base.sessionId)).toBe('3f9c2a1e');
    expect(shortId('s1')).toBe('s1');
  });

  it('builds the session link without a double slash', () => {
    expect(sessionUrl('https://desk.example.com/', 'a b')).toBe('https://desk.example.com/sessions/a%20b');
  });
});
