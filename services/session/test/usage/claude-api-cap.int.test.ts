// The claude-api monthly cap and the billing switch (spec, "Switching a Claude session's billing"), against
// the real service: turns' cost recorded in PostgreSQL decides availability, relay_info and usage say so, and a
// refused send or switch writes nothing. Also the providers that are configured but cannot run here, and a Claude
// usage limit recorded as a pause.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateSessionRequest, SendMessageRequest } from '@relay/proto/relay/session/v1/session_service';
import { callUnary } from '@relay/rpc';
import { PrismaUsageLedger } from '../../src/adapters/store/prisma-usage-ledger.ts';
import { NOW, refusal, startHarness, type Harness } from '../actions/harness.ts';

let h: Harness;
let ledger: PrismaUsageLedger;
beforeAll(async () => {
  h = await startHarness({
    settings: { ANTHROPIC_API_KEY: 'sk-ant-secret', COPILOT_GITHUB_TOKEN: 'ghp-secret', OPENAI_API_KEY: 'sk-image' },
    runs: ['script', 'claude', 'claude-api'],
    usageAllowances: { 'claude-api': { monthlyUsd: 10 } },
  });
  ledger = new PrismaUsageLedger(h.prisma);
});
afterAll(async () => {
  await h?.stop();
});

const send = (request: Partial<SendMessageRequest>) => callUnary(h.client, 'sendMessage', SendMessageRequest.fromPartial(request));
const create = (request: Partial<CreateSessionRequest>) => callUnary(h.client, 'createSession', CreateSessionRequest.fromPartial(request));

/** A claude-api turn of this month that cost `usd`. */
async function spend(usd: number, messageId: string): Promise<void> {
  await ledger.record({
    messageId,
    sessionId: 's-any',
    provider: 'claude-api',
    model: 'claude-opus-5-5',
    inputTokens: 1000,
    outputTokens: 200,
    costUsd: usd,
    recordedAt: NOW,
  });
}

describe('the claude-api monthly cap', () => {
  it('below the cap: claude-api is available, and usage meters what was spent against it', async () => {
    const userId = await h.newUser();
    await spend(4, 'm-below');
    const info = await callUnary(h.client, 'getRelayInfo', { userId, withoutUsage: false });
    expect(info.providers.find((p) => p.id === 'claude-api')).toMatchObject({ available: true, reason: '' });
    const usage = info.usage!.providers.find((p) => p.provider === 'claude-api')!;
    expect(usage.status).toBe('ok');
    expect(usage.meters.find((m) => m.name === 'cost_usd')).toMatchObject({
      used: 4,
      allowance: 10,
      remaining: 6,
      utilization: 0.4,
      resetsAt: new Date('2026-12-01T00:00:00.000Z'),
    });
    expect(usage.meters.find((m) => m.name === 'tokens')).toMatchObject({ used: 1200 });
    expect(JSON.stringify(info)).not.toMatch(/sk-ant-secret|ghp-secret|sk-image/);
  });

  describe('once reached', () => {
    let userId: string;
    let onKey: string;
    let onSubscription: string;
    beforeAll(async () => {
      userId = await h.newUser();
      onKey = await h.newSession(userId, { provider: 'claude-api', model: 'claude-opus-5-5' });
      onSubscription = await h.newSession(userId, { provider: 'claude', model: 'claude-opus-5-5' });
      await spend(7, 'm-over');
    });

    it('relay_info lists claude-api as unavailable, usage as at its limit', async () => {
      const info = await callUnary(h.client, 'getRelayInfo', { userId, withoutUsage: false });
      expect(info.providers.find((p) => p.id === 'claude-api')).toMatchObject({ available: false, reason: expect.stringContaining('US$10') });
      expect(info.usage!.providers.find((p) => p.provider === 'claude-api')).toMatchObject({ status: 'limit_reached' });
    });

    it('refuses a send to a session on the key with CLAUDE_API_CAP_REACHED, and queues nothing', async () => {
      const before = await h.dumpState();
      const error = await refusal(send({ userId, sessionId: onKey, text: 'go on' }));
      expect(error.code).toBe('REMOTE_RELAY_PROVIDER_UNAVAILABLE');
      expect(error.details).toMatchObject({ remoteCode: 'CLAUDE_API_CAP_REACHED' });
      expect(await h.dumpState()).toEqual(before);
    });

    it('refuses a switch to the key: the session keeps its billing and nothing is sent', async () => {
      const before = await h.dumpState();
      const error = await refusal(send({ userId, sessionId: onSubscription, text: 'go on', provider: 'claude-api' }));
      expect(error.code).toBe('REMOTE_RELAY_PROVIDER_UNAVAILABLE');
      expect(error.details).toMatchObject({ remoteCode: 'CLAUDE_API_CAP_REACHED' });
      expect(await h.dumpState()).toEqual(before);
    });

    it('moves the session on the key to the subscription with provider "claude", and sends', async () => {
      const sent = await send({ userId, sessionId: onKey, text: 'go on', provider: 'claude' });
      expect(sent).toMatchObject({ billingSwitch: 'subscription', session: { provider: 'claude' } });
      expect(await h.prisma.turn.count({ where: { sessionId: onKey, status: 'queued' } })).toBe(2);
    });

    it('refuses create_session on claude-api', async () => {
      const error = await refusal(create({ userId, text: 'hello', provider: 'claude-api', cwd: '/home/dev/shop' }));
      expect(error.code).toBe('REMOTE_RELAY_PROVIDER_UNAVAILABLE');
      expect(error.details).toMatchObject({ remoteCode: 'CLAUDE_API_CAP_REACHED' });
    });
  });
});

describe('providers configured but not runnable here', () => {
  it('a provider listed without a plug-in (copilot in this harness, which loads none) is unavailable with why, and create_session on it is refused', async () => {
    const userId = await h.newUser();
    const info = await callUnary(h.client, 'getRelayInfo', { userId, withoutUsage: false });
    expect(info.providers.find((p) => p.id === 'copilot')).toMatchObject({ available: false, reason: 'this relay cannot run Copilot sessions yet' });
    expect(info.usage!.providers.find((p) => p.provider === 'copilot')).toMatchObject({
      status: 'not_set_up',
      reason: 'this relay cannot run Copilot sessions yet',
    });
    const error = await refusal(create({ userId, text: 'hello', provider: 'copilot', model: 'gpt-5.4', cwd: '/home/dev/shop' }));
    expect(error.code).toBe('REMOTE_RELAY_PROVIDER_UNAVAILABLE');
  });

  it('openai-image is refused by create_session as unsupported', async () => {
    const userId = await h.newUser();
    expect((await refusal(create({ userId, text: 'draw', provider: 'openai-image', cwd: '/home/dev/shop' }))).code).toBe('REMOTE_RELAY_UNSUPPORTED');
  });
});

describe('a Claude usage limit', () => {
  it('shows as paused until its reset, and the relay says Claude turns are paused; a later pause replaces it', async () => {
    const userId = await h.newUser();
    await ledger.pause({ provider: 'claude', until: new Date(NOW.getTime() + 60 * 60_000), reason: 'a Claude usage limit holds turns until 11:00' });
    await ledger.pause({ provider: 'claude', until: new Date(NOW.getTime() + 2 * 60 * 60_000), reason: 'a Claude usage limit holds turns until 12:00' });
    const info = await callUnary(h.client, 'getRelayInfo', { userId, withoutUsage: false });
    expect(info.usage!.claudeUsageLimitPaused).toBe(true);
    expect(info.usage!.providers.find((p) => p.provider === 'claude')).toMatchObject({
      status: 'paused',
      reason: 'a Claude usage limit holds turns until 12:00',
      pausedUntil: new Date('2026-11-30T12:00:00.000Z'),
    });
    // Paused is not refused: the user may still queue work for when it resets.
    expect(info.providers.find((p) => p.id === 'claude')!.available).toBe(true);

    h.clock.set(new Date('2026-11-30T12:00:00.000Z'));
    const after = await callUnary(h.client, 'getRelayInfo', { userId, withoutUsage: false });
    expect(after.usage!.claudeUsageLimitPaused).toBe(false);
    expect(after.usage!.providers.find((p) => p.provider === 'claude')!.status).toBe('ok');
  });
});
