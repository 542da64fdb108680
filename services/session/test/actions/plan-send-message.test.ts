import { describe, expect, it } from 'vitest';
import { planSendMessage, type SendMessageContext, type SendMessageInput } from '../../src/domain/sessions/plan-send-message.ts';
import { allProviders, aSession, refusalOf } from './fixtures.ts';

const providers = await allProviders();
const caller = aSession({ id: 'caller', mode: 'plan' });
const target = aSession({ id: 'target', startedBySessionId: 'caller' });

function input(overrides: Partial<SendMessageInput> = {}): SendMessageInput {
  return {
    userId: 'u1',
    callerSessionId: 'caller',
    sessionId: 'target',
    text: 'Did the deploy go through?',
    provider: '',
    model: '',
    effort: '',
    mode: '',
    provenance: null,
    dryRun: false,
    ...overrides,
  };
}

function context(overrides: Partial<SendMessageContext> = {}): SendMessageContext {
  return { target, caller, providers, callerAtWork: 0, targetAtWork: false, relayName: 'build-box', ...overrides };
}

describe('planSendMessage', () => {
  it("passes the caller's own mode when the send names none, and it stays on the session", () => {
    const plan = planSendMessage(input(), context());
    expect(plan.mode).toBe('plan');
    expect(plan.changes).toEqual({ mode: 'plan' });
  });

  it('takes the mode named; a user writing keeps the session mode', () => {
    expect(planSendMessage(input({ mode: 'ask' }), context()).mode).toBe('ask');
    const user = planSendMessage(input({ callerSessionId: '' }), context({ caller: undefined, target: { ...target, mode: 'ask' } }));
    expect(user.mode).toBe('ask');
    expect(user.changes).toEqual({});
  });

  it('changes nothing on the session when nothing differs', () => {
    expect(planSendMessage(input(), context({ caller: { ...caller, mode: 'agent' } })).changes).toEqual({});
  });

  it('carries a model named in the send onto the session', () => {
    const claude = { ...target, provider: 'claude', model: 'claude-opus-5-5' };
    expect(planSendMessage(input({ model: 'claude-haiku-5-5' }), context({ target: claude, caller: { ...caller, mode: 'agent' } })).changes).toEqual({
      model: 'claude-haiku-5-5',
    });
  });

  it.each<[string, Partial<SendMessageInput>, Partial<SendMessageContext>, string]>([
    ['an unknown session', { sessionId: 'nope' }, { target: undefined }, 'REMOTE_RELAY_NOT_FOUND'],
    ["another user's session", {}, { target: { ...target, userId: 'u2' } }, 'REMOTE_RELAY_NOT_FOUND'],
    ["the caller's own conversation", { sessionId: 'caller' }, { target: caller }, 'REMOTE_RELAY_FORBIDDEN'],
    ['an archived session', {}, { target: { ...target, archived: true } }, 'REMOTE_RELAY_ARCHIVED'],
    ['an external session', {}, { target: { ...target, provider: 'external', origin: 'external' } }, 'REMOTE_RELAY_UNSUPPORTED'],
    ['an empty text', { text: ' ' }, {}, 'REMOTE_RELAY_INVALID_INPUT'],
    ['an unknown model', { model: 'script-2' }, {}, 'REMOTE_RELAY_UNKNOWN_MODEL'],
    ['a bad mode', { mode: 'auto' }, {}, 'REMOTE_RELAY_INVALID_INPUT'],
    ['an effort script lacks', { effort: 'low' }, {}, 'REMOTE_RELAY_INVALID_INPUT'],
    ['a provider switch on a non-Claude session', { provider: 'claude' }, {}, 'REMOTE_RELAY_INVALID_INPUT'],
    ['a fifth started session at work', {}, { callerAtWork: 4 }, 'REMOTE_RELAY_ACTIVE_LIMIT'],
  ])('refuses %s', (_, overrides, contextOverrides, code) => {
    expect(refusalOf(() => planSendMessage(input(overrides), context(contextOverrides))).code).toBe(code);
  });

  it('sends to a session already at work even when four are', () => {
    expect(planSendMessage(input(), context({ callerAtWork: 4, targetAtWork: true })).mode).toBe('plan');
  });

  it('does not count sessions the caller did not start against its limit', () => {
    const others = { ...target, startedBySessionId: null };
    expect(planSendMessage(input(), context({ target: others, callerAtWork: 4 })).mode).toBe('plan');
  });
});

describe("planSendMessage: switching a Claude session's billing", () => {
  const claude = { ...target, provider: 'claude', model: 'claude-sonnet-5-5' };

  it('switches claude → claude-api and says "API key" for the card', () => {
    const plan = planSendMessage(input({ provider: 'claude-api' }), context({ target: claude }));
    expect(plan.billingSwitch).toBe('API key');
    expect(plan.changes).toMatchObject({ provider: 'claude-api' });
  });

  it('switches claude-api → claude and says "subscription"', () => {
    const plan = planSendMessage(input({ provider: 'claude' }), context({ target: { ...claude, provider: 'claude-api' } }));
    expect(plan.billingSwitch).toBe('subscription');
  });

  it('does not switch when the session is on that billing already', () => {
    expect(planSendMessage(input({ provider: 'claude' }), context({ target: claude })).billingSwitch).toBe('');
  });

  it('refuses a switch to a billing not set up here, with its code in remoteCode, and sends nothing', async () => {
    const without = await allProviders(['claude-api']);
    const error = refusalOf(() => planSendMessage(input({ provider: 'claude-api' }), context({ target: claude, providers: without })));
    expect(error.code).toBe('REMOTE_RELAY_PROVIDER_UNAVAILABLE');
    expect(error.details['remoteCode']).toBe('CLAUDE_API_NOT_RUNNABLE');
    expect(error.message).toMatch(/Nothing was sent\.$/);
  });

  it("refuses a switch when the session's model is not on the other side's list", async () => {
    const list = (await allProviders()).map((known) => (known.id === 'claude-api' ? { ...known, models: ['claude-opus-5-5'] } : known));
    const error = refusalOf(() => planSendMessage(input({ provider: 'claude-api' }), context({ target: claude, providers: list })));
    expect(error.code).toBe('REMOTE_RELAY_UNKNOWN_MODEL');
  });

  it('refuses a switch to claude-cloud or from Copilot', () => {
    expect(refusalOf(() => planSendMessage(input({ provider: 'claude-cloud' }), context({ target: claude }))).code).toBe('REMOTE_RELAY_INVALID_INPUT');
    const copilot = { ...target, provider: 'copilot', model: 'gpt-5.4' };
    expect(refusalOf(() => planSendMessage(input({ provider: 'claude' }), context({ target: copilot }))).code).toBe('REMOTE_RELAY_INVALID_INPUT');
  });

  it("refuses a send to a session whose provider is not set up (the key's cap reached, say)", async () => {
    const without = await allProviders(['claude-api']);
    const error = refusalOf(() => planSendMessage(input(), context({ target: { ...claude, provider: 'claude-api' }, providers: without })));
    expect(error.code).toBe('REMOTE_RELAY_PROVIDER_UNAVAILABLE');
  });
});
