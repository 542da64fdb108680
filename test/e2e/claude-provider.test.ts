// Issue 4 end to end, without Claude credentials or a working Claude Code here: the six real processes,
// configured with a subscription token but an executable that is missing, and no API key. relay_info lists
// both Claude billings as unavailable with why, create_session on them is refused with the provider's code,
// and no credential shows anywhere in what an agent reads.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRelay, type Relay } from '../harness/relay.ts';
import { relayToolResult } from '../harness/script-turns.ts';

let relay: Relay;

/** What a script agent's relay_tool call answers. */
const relayTool = (args: Record<string, unknown>) => relayToolResult(relay, args, String(args['action']));

beforeAll(async () => {
  relay = await startRelay({
    name: 'desk',
    env: { RELAY_AGENT_SESSIONS: 'on', CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat-not-a-real-token', RELAY_CLAUDE_EXECUTABLE: '/nonexistent/claude' },
  });
});

afterAll(async () => {
  await relay?.stop();
});

describe('Claude on a relay that cannot run it', () => {
  it('relay_info lists claude and claude-api as unavailable, each with why, and no credential', async () => {
    const info = await relayTool({ action: 'relay_info', relay: 'this' });
    const byId = Object.fromEntries(info.providers.map((provider: any) => [provider.id, provider]));
    expect(byId['claude']).toMatchObject({
      available: false,
      reason: "Claude Code's executable /nonexistent/claude (RELAY_CLAUDE_EXECUTABLE) is missing or not executable on this machine",
    });
    expect(byId['claude-api']).toMatchObject({ available: false, reason: 'no Anthropic API key configured (ANTHROPIC_API_KEY)' });
    expect(byId['claude']!.models).toEqual(['claude-opus-5-5', 'claude-sonnet-5-5', 'claude-haiku-5-5']);
    expect(JSON.stringify(info)).not.toContain('sk-ant-oat');
  });

  it('create_session on either is refused with REMOTE_RELAY_PROVIDER_UNAVAILABLE and the provider’s code; nothing is created', async () => {
    const before = (await relay.api('GET', '/api/v1/sessions?scope=all')).body.sessions.length;
    const claude = await relayTool({ action: 'create_session', relay: 'this', provider: 'claude', text: 'hello' });
    expect(claude).toMatchObject({ ok: false, code: 'REMOTE_RELAY_PROVIDER_UNAVAILABLE', remoteCode: 'CLAUDE_NOT_RUNNABLE' });
    const claudeApi = await relayTool({ action: 'create_session', relay: 'this', provider: 'claude-api', text: 'hello' });
    expect(claudeApi).toMatchObject({ ok: false, code: 'REMOTE_RELAY_PROVIDER_UNAVAILABLE', remoteCode: 'CLAUDE_API_NOT_CONFIGURED' });
    // Only the two script sessions that made the calls are new.
    expect((await relay.api('GET', '/api/v1/sessions?scope=all')).body.sessions.length).toBe(before + 2);
  });

  it('usage says both are not set up, with why, and no credential', async () => {
    const usage = await relayTool({ action: 'usage', relay: 'this' });
    expect(usage.providers.find((provider: any) => provider.provider === 'claude')).toMatchObject({
      status: 'not_set_up',
      reason: expect.stringContaining('RELAY_CLAUDE_EXECUTABLE'),
    });
    expect(usage.providers.find((provider: any) => provider.provider === 'claude-api')).toMatchObject({ status: 'not_set_up' });
    expect(usage.claudeUsageLimitPaused).toBe(false);
    expect(JSON.stringify(usage)).not.toContain('sk-ant-oat');
  });
});
