// Issue 41, item 3, end to end: Claude Cloud as a provider, over Anthropic's Managed Agents API through the official
// SDK, against the fake of that API this suite runs on loopback (test/harness/fake-claude-cloud-api.ts: Anthropic
// cannot be reached here). A session takes repo and branch instead of a folder, and refuses a folder; a turn replies in
// a cloud session made with the configured agent and environment, the repository checked out at the branch, every tool
// asking; the tool confirmation the cloud session waits on is the owner's card (Allow: the API is sent allow and the
// turn goes on; Deny: deny); stop interrupts a turn (the API hears user.interrupt); a later turn, after the session
// service restarts too, goes on in the same cloud session; a turn waiting on its card is handed over to the next
// replica, its card the same one and its decision sent once; relay_tool reaches the cloud session at the configured
// public URL of the gateway's /mcp, with the session's token from the session's vault (replaced when another worker
// runs it); a model Claude Cloud does not run is refused with suggestions before anything is created; the tokens and
// cost the API reports show in usage.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeClaudeCloudApi, type CloudTurn, type FakeCloudApi } from '../harness/fake-claude-cloud-api.ts';
import { startRelay, type Relay } from '../harness/relay.ts';
import { createSession, finish, pendingCard, relayToolResult } from '../harness/script-turns.ts';
import { until } from '../harness/until.ts';

let relay: Relay;
let api: FakeCloudApi;

const REPO = 'example-org/sample-repo';
const BRANCH = 'feature/banner';
/** The gateway's /mcp as the cloud would reach it; the fake's ingress takes it to the loopback gateway. */
const PUBLIC_MCP = 'https://relay.example.test/mcp';

/**
 * The fake cloud agent: "run: <command>" calls bash (which asks) and reports the confirmation; "relay: <arguments>"
 * calls relay_tool and reports its answer; "wait" works until it is interrupted; "refuse" and "spend" end the turn as
 * a refusal and on the budget; anything else is answered at once. Each answer reports 100 + 10 tokens.
 */
async function onMessage(turn: CloudTurn): Promise<void> {
  const relayCall = /relay: (.*)$/m.exec(turn.text)?.[1];
  if (relayCall !== undefined)
    return turn.reply(`relay_tool said: ${await turn.callMcp('relay', 'relay_tool', JSON.parse(relayCall))}`, { input: 100, output: 10 });
  const command = /run: (.*)$/m.exec(turn.text)?.[1];
  if (command !== undefined) {
    const confirmation = await turn.askTool('bash', { command });
    if (confirmation.result === 'allow')
      turn.emit({ type: 'agent.tool_result', tool_use_id: confirmation.tool_use_id, content: [{ type: 'text', text: 'done' }], is_error: false });
    turn.reply(confirmation.result === 'allow' ? `ran: ${command}` : `denied: ${confirmation.deny_message}`, { input: 100, output: 10 });
    return;
  }
  if (turn.text.endsWith('refuse'))
    return turn.end({ type: 'refusal' }, { type: 'refusal', category: null, explanation: 'that is not something to help with' });
  if (turn.text.endsWith('spend')) return turn.end({ type: 'budget_reached' });
  if (turn.text.endsWith('wait')) {
    turn.emit({ type: 'agent.tool_use', name: 'bash', input: { command: 'sleep 600' }, evaluated_permission: 'allow' });
    await turn.interrupted;
    return;
  }
  turn.reply('hello from Claude Cloud', { input: 100, output: 10 });
}

/** A Claude Cloud session on the repository's branch, started with `text`. */
const startSession = (text: string) =>
  createSession(relay, { provider: 'claude-cloud', model: 'claude-sonnet-5-5', repo: REPO, branch: BRANCH, title: 'Banner', text });

async function send(sessionId: string, text: string): Promise<string> {
  const sent = await relay.api('POST', `/api/v1/sessions/${sessionId}/messages`, { text });
  expect(sent.status, JSON.stringify(sent.body)).toBeLessThan(300);
  return sent.body.message_id;
}

/** The cloud session the fake made for the relay session. */
const cloudSessionOf = (sessionId: string) => [...api.sessions.values()].find((session) => session.created.metadata?.relay_session === sessionId);

/** Starts the session service again, once the gateway reaches it (within its reconnect backoff). */
async function startSessionService(): Promise<void> {
  relay.services.session.start();
  await relay.waitReady('session');
  await until('the gateway reaches the new replica', async () => ((await relay.api('GET', '/api/v1/sessions')).status === 200 ? true : undefined));
}

beforeAll(async () => {
  api = await startFakeClaudeCloudApi({ onMessage });
  relay = await startRelay({
    name: 'desk',
    env: {
      RELAY_AGENT_SESSIONS: 'on',
      ANTHROPIC_API_KEY: 'sk-ant-api-cloud-test-key',
      RELAY_CLAUDE_CLOUD_AGENT_ID: 'agent_fake01',
      RELAY_CLAUDE_CLOUD_ENVIRONMENT_ID: 'env_fake01',
      RELAY_CLAUDE_CLOUD_BUDGET_USD: '5',
      RELAY_CLAUDE_CLOUD_BASE_URL: api.url,
      RELAY_CLAUDE_CLOUD_MCP_URL: PUBLIC_MCP,
    },
  });
  api.route.set(PUBLIC_MCP, relay.mcpUrl);
});

afterAll(async () => {
  await relay?.stop();
  await api?.close();
});

describe('Claude Cloud as a provider (Managed Agents API, against its fake)', () => {
  it('relay_info lists it as available with Claude’s model ids; no secret', async () => {
    const info = await relayToolResult(relay, { action: 'relay_info', relay: 'this' });
    expect(info.providers.find((provider: any) => provider.id === 'claude-cloud')).toMatchObject({
      name: 'Claude Cloud',
      available: true,
      models: expect.arrayContaining(['claude-sonnet-5-5']),
    });
    expect(JSON.stringify(info)).not.toContain('sk-ant-api-cloud');
  });

  it('runs a turn that replies, in a cloud session on the repository’s branch where every tool asks', async () => {
    const { id: sessionId, messageId } = await startSession('hello');
    const turn = await finish(relay, sessionId, messageId);
    expect(turn.status, JSON.stringify(turn)).toBe('done');
    expect(turn.reply).toMatchObject({ text: 'hello from Claude Cloud', model: 'claude-sonnet-5-5' });
    const cloud = cloudSessionOf(sessionId)!;
    expect(cloud.created).toMatchObject({
      agent: {
        type: 'agent_with_overrides',
        id: 'agent_fake01',
        model: 'claude-sonnet-5-5',
        mcp_servers: [{ type: 'url', name: 'relay', url: PUBLIC_MCP }],
        // Every tool of the container asks; relay_tool asks the owner itself where the rules say.
        tools: [
          { type: 'agent_toolset_20260401', default_config: { permission_policy: { type: 'always_ask' } } },
          { type: 'mcp_toolset', mcp_server_name: 'relay', default_config: { permission_policy: { type: 'always_allow' } } },
        ],
      },
      environment_id: 'env_fake01',
      resources: [{ type: 'github_repository', url: `https://github.com/${REPO}`, checkout: { type: 'branch', name: BRANCH } }],
      budget: { type: 'limit', max_list_cost: { amount: '500', currency: 'USD' } },
    });
    expect(cloud.received.map((event) => event.type)).toEqual(['user.message']);
    // Its vault holds a token for the gateway's public /mcp, and nothing else.
    expect(cloud.created.vault_ids).toHaveLength(1);
    expect([...api.credentials.values()].filter((held) => held.vault === cloud.created.vault_ids[0]).map((held) => held.url)).toEqual([PUBLIC_MCP]);
    expect(api.requests.every((request) => request.apiKey === 'sk-ant-api-cloud-test-key' && request.beta?.includes('managed-agents-2026-04-01'))).toBe(true);
    const shown = await relay.api('GET', `/api/v1/sessions/${sessionId}`);
    expect(shown.body.session).toMatchObject({ provider: 'claude-cloud', repo: REPO, branch: BRANCH });
  });

  it('refuses a folder for a cloud session: at its start and in update_session, before anything changes', async () => {
    const withFolder = await relay.api('POST', '/api/v1/sessions', { provider: 'claude-cloud', repo: REPO, branch: BRANCH, cwd: '/tmp', text: 'hello' });
    expect(withFolder.status).toBe(400);
    expect(JSON.stringify(withFolder.body)).toContain('works on a repository, not a folder');
    const { id: sessionId, messageId } = await startSession('hello');
    await finish(relay, sessionId, messageId);
    const moved = await relayToolResult(relay, { action: 'update_session', relay: 'this', session: sessionId, cwd: '/tmp' });
    expect(moved).toMatchObject({ ok: false, code: 'REMOTE_RELAY_INVALID_INPUT' });
    expect((await relay.api('GET', `/api/v1/sessions/${sessionId}`)).body.session).toMatchObject({ repo: REPO, branch: BRANCH });
  });

  it('asks the owner on a card for the tool the cloud session waits on; Allow sends allow and the turn goes on', async () => {
    const { id: sessionId, messageId } = await startSession('run: npm test');
    const card = await pendingCard(relay, sessionId);
    expect(card.title).toBe('Claude Cloud (claude-sonnet-5-5) wants to run a command');
    expect(card.lines).toEqual([
      `Repository: ${REPO}`,
      `Branch: ${BRANCH}`,
      'Command: npm test',
      expect.stringMatching(/^Runs in: Anthropic's cloud container/),
    ]);
    // Nothing was confirmed before the person decided.
    expect(cloudSessionOf(sessionId)!.received.map((event) => event.type)).toEqual(['user.message']);
    expect((await relay.api('POST', `/api/v1/cards/${card.id}`, { decision: 'allow' })).status).toBe(200);
    const turn = await finish(relay, sessionId, messageId);
    expect(turn.status, JSON.stringify(turn)).toBe('done');
    expect(turn.reply.text).toBe('ran: npm test');
    expect(cloudSessionOf(sessionId)!.received.at(-1)).toMatchObject({ type: 'user.tool_confirmation', result: 'allow' });
  });

  it('Deny sends deny, with why, and the tool does not run', async () => {
    const { id: sessionId, messageId } = await startSession('run: git push --force');
    const card = await pendingCard(relay, sessionId);
    expect((await relay.api('POST', `/api/v1/cards/${card.id}`, { decision: 'deny' })).status).toBe(200);
    const turn = await finish(relay, sessionId, messageId);
    expect(turn.status, JSON.stringify(turn)).toBe('done');
    expect(turn.reply.text).toBe('denied: The user did not allow this on the relay: it did not run.');
    const confirmation = cloudSessionOf(sessionId)!.received.at(-1);
    expect(confirmation).toMatchObject({ type: 'user.tool_confirmation', result: 'deny' });
    expect(cloudSessionOf(sessionId)!.received.filter((event) => event.type === 'user.tool_confirmation')).toHaveLength(1);
  });

  it('stop interrupts a running turn (the API’s user.interrupt)', async () => {
    const { id: sessionId, messageId } = await startSession('wait');
    await until('the cloud session running', async () => cloudSessionOf(sessionId)?.status === 'running' || undefined);
    expect((await relay.api('POST', `/api/v1/sessions/${sessionId}/stop`, {})).status).toBeLessThan(300);
    const turn = await finish(relay, sessionId, messageId);
    expect(turn.status, JSON.stringify(turn)).toBe('stopped');
    expect(cloudSessionOf(sessionId)!.received.map((event) => event.type)).toEqual(['user.message', 'user.interrupt']);
  });

  it('ends a turn the model refused with Claude’s explanation, and fails one past the session’s budget with why', async () => {
    const refused = await startSession('refuse');
    expect(await finish(relay, refused.id, refused.messageId)).toMatchObject({
      status: 'done',
      reply: { text: 'Claude declined to answer: that is not something to help with' },
    });
    const spent = await startSession('spend');
    const turn = await finish(relay, spent.id, spent.messageId);
    expect(turn).toMatchObject({ status: 'error', error: expect.stringContaining("the session's budget is used up") });
  });

  it('goes on in the same cloud session on the next turn, after the session service restarts too, relay_tool with the new worker’s token', async () => {
    const { id: sessionId, messageId } = await startSession('hello');
    await finish(relay, sessionId, messageId);
    const cloud = cloudSessionOf(sessionId)!;
    await relay.services.session.stop();
    await startSessionService();
    const sessionsBefore = api.sessions.size;
    // The worker token of the first turn was revoked when the service stopped: relay_tool answers with the new one.
    const next = await send(sessionId, 'relay: {"action":"read_session","relay":"this","session":"' + sessionId + '"}');
    const turn = await finish(relay, sessionId, next);
    expect(turn.status, JSON.stringify(turn)).toBe('done');
    expect(turn.reply.text).toMatch(/^relay_tool said: \{"ok":true/);
    expect(turn.reply.text).toContain('hello from Claude Cloud');
    expect(api.sessions.size).toBe(sessionsBefore);
    expect(cloud.received.filter((event) => event.type === 'user.message').map((event) => event.content[0].text)).toEqual([
      'hello',
      expect.stringMatching(/^relay: /),
    ]);
  });

  it('hands a turn waiting on its card over when the session service stops: the same card, its decision sent once', async () => {
    const { id: sessionId, messageId } = await startSession('run: make deploy');
    const card = await pendingCard(relay, sessionId);
    await relay.services.session.stop();
    await startSessionService();
    // Decided after the hand-over: the decision is the card's, read by the replica that waits on it now.
    expect((await relay.api('POST', `/api/v1/cards/${card.id}`, { decision: 'allow' })).status).toBe(200);
    const turn = await finish(relay, sessionId, messageId);
    expect(turn, JSON.stringify(turn)).toMatchObject({ status: 'done', reply: { text: 'ran: make deploy' } });
    const cloud = cloudSessionOf(sessionId)!;
    expect(cloud.received.map((event) => [event.type, event.result])).toEqual([
      ['user.message', undefined],
      ['user.tool_confirmation', 'allow'],
    ]);
    expect((await relay.api('GET', `/api/v1/cards?session=${sessionId}`)).body.cards.map((shown: any) => shown.id)).toEqual([card.id]);
  });

  it('refuses a model it does not run, with the close match, before anything is created', async () => {
    const cloudSessions = api.sessions.size;
    const refused = await relayToolResult(relay, {
      action: 'create_session',
      relay: 'this',
      provider: 'claude-cloud',
      repo: REPO,
      branch: BRANCH,
      model: 'claude-sonnet-5.5',
      text: 'hello',
    });
    expect(refused).toMatchObject({ ok: false, code: 'REMOTE_RELAY_UNKNOWN_MODEL', suggestions: ['claude-sonnet-5-5'] });
    expect(api.sessions.size).toBe(cloudSessions);
  });

  it('usage meters the tokens and the cost the API reported for its turns', async () => {
    const usage = await relayToolResult(relay, { action: 'usage', relay: 'this' });
    const cloud = usage.providers.find((provider: any) => provider.provider === 'claude-cloud');
    // Seven answered turns (hello in three sessions, Allow, Deny, relay_tool, the turn handed over): 110 tokens each,
    // and the fake's list price of a cent per hundred tokens grew each session's cumulative list cost by $0.01 a turn
    // (the stopped, refused and spent turns reported nothing).
    expect(cloud).toMatchObject({
      status: 'ok',
      meters: [expect.objectContaining({ name: 'tokens', used: 7 * 110 }), expect.objectContaining({ name: 'cost_usd', used: 0.07 })],
    });
  });
});
