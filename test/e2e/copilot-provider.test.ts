// Issue 41, item 2, end to end: Copilot as a provider, through the official SDK (@github/copilot-sdk) and the Copilot
// runtime it ships, in bring-your-own-key mode (RELAY_COPILOT_BASE_URL) against the OpenAI-compatible server this suite
// runs on loopback (test/harness/fake-openai-api.ts). A turn replies; the command the model asks for (run_command) is
// the owner's approval card: Allow runs it in the sandbox, in the session's folder, Deny does not; stop ends a turn
// mid-way (the command and the runtime gone, the model told nothing of it); a model Copilot does not run is refused
// with suggestions before anything is created; the tokens the endpoint reports show in usage. The runtime itself runs
// in the sandbox (namespaces of its own, the session's folder, a private home, none of the relay's environment), and
// relay_tool reaches it from the gateway's MCP endpoint with the session's token.
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunk, DONE, startFakeOpenAiApi, usageChunk, type FakeOpenAiApi } from '../harness/fake-openai-api.ts';
import { startRelay, type Relay } from '../harness/relay.ts';
import { createSession, finish, pendingCard, relayToolResult } from '../harness/script-turns.ts';
import { stopWhileTicking, tickingCommand } from '../harness/ticking-command.ts';

let relay: Relay;
let api: FakeOpenAiApi;
let folder: string;

/** A message's text, whether its content is a string or parts. */
const textOf = (message: any): string =>
  typeof message.content === 'string' ? message.content : (message.content ?? []).map((part: any) => part.text ?? '').join('');

/** The name the model is offered relay_tool under (the runtime names an MCP tool server-tool). */
const RELAY_TOOL = 'relay-relay_tool';

/**
 * The fake model: "run: <command>" asks for run_command, "relay: <arguments>" for relay_tool, then answers with what
 * the tool returned; anything else is answered at once. Each answer reports 50 + 5 tokens.
 */
function answer(body: any): string[] {
  const messages: any[] = body.messages;
  const lastUser = [...messages].reverse().find((message) => message.role === 'user');
  const command = /run: (.*)$/m.exec(textOf(lastUser))?.[1];
  const relayCall = /relay: (.*)$/m.exec(textOf(lastUser))?.[1];
  const toolMessage = messages.at(-1)?.role === 'tool' ? messages.at(-1) : undefined;
  if ((command !== undefined || relayCall !== undefined) && toolMessage === undefined) {
    const call = command !== undefined ? { name: 'run_command', arguments: JSON.stringify({ command }) } : { name: RELAY_TOOL, arguments: relayCall };
    return [
      chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: call }] }),
      chunk({}, 'tool_calls'),
      usageChunk(50, 5),
      DONE,
    ];
  }
  const reply = toolMessage === undefined ? 'hello from Copilot' : `the tool said: ${textOf(toolMessage).trim()}`;
  return [chunk({ role: 'assistant', content: reply }), chunk({}, 'stop'), usageChunk(50, 5), DONE];
}

/** A Copilot session's first turn. */
const startTurn = (text: string) => createSession(relay, { provider: 'copilot', model: 'gpt-5.4', cwd: folder, title: 'Copilot', text });

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'relay-copilot-e2e-'));
  api = await startFakeOpenAiApi({ answer, models: ['gpt-5.4'] });
  relay = await startRelay({
    name: 'desk',
    env: { RELAY_AGENT_SESSIONS: 'on', RELAY_COPILOT_BASE_URL: api.url, RELAY_COPILOT_API_KEY: 'copilot-byok-key' },
  });
});

afterAll(async () => {
  await relay?.stop();
  await api?.close();
  if (folder !== undefined) await rm(folder, { recursive: true, force: true });
});

describe('Copilot as a provider (bring your own key)', () => {
  it('relay_info lists it as available with its dotted model ids; no secret', async () => {
    const info = await relayToolResult(relay, { action: 'relay_info', relay: 'this' });
    expect(info.providers.find((provider: any) => provider.id === 'copilot')).toMatchObject({
      name: 'Copilot',
      available: true,
      models: expect.arrayContaining(['gpt-5.4']),
    });
    expect(JSON.stringify(info)).not.toContain('copilot-byok-key');
  });

  it('runs a turn that replies, its model requests going to the configured endpoint with its key', async () => {
    const { id: sessionId, messageId } = await startTurn('hello');
    const turn = await finish(relay, sessionId, messageId);
    expect(turn.status, JSON.stringify(turn)).toBe('done');
    expect(turn.reply).toMatchObject({ text: 'hello from Copilot', model: 'gpt-5.4' });
    expect(api.requests.at(-1)).toMatchObject({ authorization: 'Bearer copilot-byok-key', body: { model: 'gpt-5.4' } });
    // The model is offered the relay's run_command and relay_tool: none of the CLI's own tools.
    expect(
      api.requests
        .at(-1)!
        .body.tools.map((tool: any) => tool.function.name)
        .sort(),
    ).toEqual([RELAY_TOOL, 'run_command']);
  });

  it('offers relay_tool from the gateway’s MCP endpoint, called with the session’s token, without a card', async () => {
    const { id: sessionId, messageId } = await startTurn('relay: {"action":"relay_info","relay":"this"}');
    const turn = await finish(relay, sessionId, messageId);
    expect(turn.status, JSON.stringify(turn)).toBe('done');
    // What the model read back is relay_info's answer, this relay's: the call went through the gateway.
    const toolMessage = api.requests.at(-1)!.body.messages.at(-1);
    expect(toolMessage.role).toBe('tool');
    expect(textOf(toolMessage)).toContain('"ok":true');
    expect(textOf(toolMessage)).toContain('"id":"copilot"');
    expect((await relay.api('GET', `/api/v1/cards?session=${sessionId}`)).body.cards).toEqual([]);
  });

  it('runs the Copilot runtime itself in the sandbox: namespaces of its own, the session folder, a private home, none of the relay’s environment', async () => {
    const { id: sessionId, messageId } = await startTurn('run: true');
    const card = await pendingCard(relay, sessionId);
    // While the card waits, the runtime runs, in the session's folder: the process whose program is copilot-runtime
    // (bubblewrap's names it as an argument).
    const runtimes = readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .filter((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0]!.endsWith('/copilot-runtime') && readlinkSync(`/proc/${pid}/cwd`) === folder;
        } catch {
          return false;
        }
      });
    expect(runtimes).toHaveLength(1);
    const pid = runtimes[0]!;
    for (const namespace of ['mnt', 'pid', 'user']) expect(readlinkSync(`/proc/${pid}/ns/${namespace}`)).not.toBe(readlinkSync(`/proc/self/ns/${namespace}`));
    const environment = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    expect(environment).toContain('HOME=/tmp/home');
    expect(environment.filter((variable) => /^(DATABASE_URL|NATS_URL|RELAY_SERVICE_TOKEN|RELAY_SERVICE_KEYS|RELAY_COPILOT_API_KEY)=/.test(variable))).toEqual(
      [],
    );
    expect(environment.join('\n')).not.toContain('copilot-byok-key');
    expect((await relay.api('POST', `/api/v1/cards/${card.id}`, { decision: 'deny' })).status).toBe(200);
    expect((await finish(relay, sessionId, messageId)).status).toBe('done');
  });

  it('refuses a model Copilot does not run, with the close match, before anything is created', async () => {
    const before = (await relay.api('GET', '/api/v1/sessions')).body.sessions.length;
    const unknown = await relayToolResult(relay, { action: 'create_session', relay: 'this', provider: 'copilot', model: 'gpt-5-4', text: 'hello' });
    expect(unknown).toMatchObject({ ok: false, suggestions: ['gpt-5.4'] });
    const claudeId = await relayToolResult(relay, { action: 'create_session', relay: 'this', provider: 'copilot', model: 'claude-sonnet-5-5', text: 'hello' });
    expect(claudeId).toMatchObject({ ok: false, code: 'CLAUDE_PROVIDER_REQUIRED', suggestions: expect.arrayContaining(['claude-sonnet-5.5']) });
    // Only the two script sessions that asked were created.
    expect((await relay.api('GET', '/api/v1/sessions')).body.sessions.length).toBe(before + 2);
  });

  it('asks the owner on a card for the command; Allow runs it in the sandbox, in the session folder', async () => {
    const { id: sessionId, messageId } = await startTurn('run: pwd > where.txt; echo ran-here');
    const card = await pendingCard(relay, sessionId);
    expect(card.title).toBe('Copilot (gpt-5.4) wants to run a command');
    expect(card.lines).toEqual([`Folder: ${folder}`, 'Command: pwd > where.txt; echo ran-here', expect.stringMatching(/^Runs in: bubblewrap sandbox/)]);
    expect((await relay.api('POST', `/api/v1/cards/${card.id}`, { decision: 'allow' })).status).toBe(200);
    const turn = await finish(relay, sessionId, messageId);
    expect(turn.status, JSON.stringify(turn)).toBe('done');
    expect(turn.reply.text).toMatch(/^the tool said: exit 0\s+ran-here/);
    expect((await readFile(join(folder, 'where.txt'), 'utf8')).trim()).toBe(folder);
  });

  it('Deny: the command does not run, and the model reads the refusal', async () => {
    const { id: sessionId, messageId } = await startTurn('run: touch denied.txt');
    const card = await pendingCard(relay, sessionId);
    expect((await relay.api('POST', `/api/v1/cards/${card.id}`, { decision: 'deny' })).status).toBe(200);
    const turn = await finish(relay, sessionId, messageId);
    expect(turn.status, JSON.stringify(turn)).toBe('done');
    expect(turn.reply.text).toMatch(/^the tool said: /);
    expect(existsSync(join(folder, 'denied.txt'))).toBe(false);
  });

  it('stop ends a turn mid-way (a command running): the turn is stopped, the command and the runtime are gone, the model is asked nothing more', async () => {
    const { id: sessionId, messageId } = await startTurn(`run: ${tickingCommand('ticks.txt')}`);
    const asked = await stopWhileTicking(relay, { sessionId, messageId }, folder, () => api.requests.length);
    // The command's output never reached the model.
    expect(api.requests.slice(asked).filter((request) => JSON.stringify(request.body).includes('ticks.txt'))).toEqual([]);
  });

  it('usage meters the tokens the endpoint reported for its turns', async () => {
    const usage = await relayToolResult(relay, { action: 'usage', relay: 'this' });
    // hello: one answer; relay_tool, the runtime's Deny, Allow and Deny: two each; the stopped turn: one (its command
    // was running) — 55 tokens each.
    expect(usage.providers.find((provider: any) => provider.provider === 'copilot')).toMatchObject({
      status: 'ok',
      meters: [{ name: 'tokens', used: 10 * 55 }],
    });
  });
});
