// Issue 41, item 5, end to end with a real ACP agent: Zed's codex-acp (@zed-industries/codex-acp, the binary of its
// linux-x64 package), Codex behind the Agent Client Protocol, configured in RELAY_ACP_AGENTS as any ACP agent is: its
// command with Codex's `-c` settings (the model provider this suite runs on loopback, test/harness/fake-openai-api.ts,
// its key in the agent's env; every command asked, "untrusted"; no sandbox of Codex's own, the relay's encloses it).
// The relay starts it in its bubblewrap sandbox for each turn. A turn replies, on the model the session names; its
// models are discovered from its "model" config option, and one it does not offer is refused with suggestions; the
// command the model asks for is its ACP permission request, the owner's approval card (Allow: the command runs in the
// sandbox, in the session's folder, without the agent's key; Deny: it does not, and Codex ends the turn); relay_tool is
// the relay's MCP server, each call on the owner's card too (Codex asks before it calls a client's MCP tool); stop ends
// a turn mid-way (the command and the agent gone, the model told nothing of it). codex-acp reports no tokens over ACP
// (its usage_update is the context window's fill, with no cost), so usage meters none. Only the model is a fake.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { responseEvents, startFakeOpenAiApi, type FakeOpenAiApi } from '../harness/fake-openai-api.ts';
import { startRelay, type Relay } from '../harness/relay.ts';
import { createSession, finish, pendingCard, relayToolResult } from '../harness/script-turns.ts';
import { stopWhileTicking, tickingCommand } from '../harness/ticking-command.ts';

const codexAcp = fileURLToPath(new URL('../../node_modules/@zed-industries/codex-acp-linux-x64/bin/codex-acp', import.meta.url));

let relay: Relay;
let api: FakeOpenAiApi;
let folder: string;

/** Text as the Responses API gives it: a string, or parts with text. */
const textOfParts = (parts: any): string => (typeof parts === 'string' ? parts : (parts ?? []).map((part: any) => part.text ?? '').join(''));

/**
 * The fake model: "run: <command>" asks for Codex's exec_command, "relay_tool: <arguments>" for relay_tool (the
 * relay's MCP server, as Codex offers it), then answers with what the tool returned; anything else is answered at
 * once. Each answer reports 50 + 5 tokens (which codex-acp does not pass on).
 */
function respond(body: any): string[] {
  const input: any[] = body.input;
  const lastUser = [...input].reverse().find((item) => item.type === 'message' && item.role === 'user');
  const said = textOfParts(lastUser.content);
  const asked = /run: (.*)$/m.exec(said)?.[1];
  const relayCall = /relay_tool: (.*)$/m.exec(said)?.[1];
  const output = input.at(-1)?.type === 'function_call_output' ? input.at(-1) : undefined;
  const usage = { input: 50, output: 5 };
  if (asked !== undefined && output === undefined) return responseEvents({ call: { name: 'exec_command', arguments: { cmd: asked } } }, usage);
  if (relayCall !== undefined && output === undefined)
    return responseEvents({ call: { namespace: 'mcp__relay', name: 'relay_tool', arguments: JSON.parse(relayCall) } }, usage);
  return responseEvents({ text: output === undefined ? 'hello from codex-acp' : `the tool said: ${textOfParts(output.output).trim()}` }, usage);
}

/** A codex-acp session's first turn. */
const startTurn = (text: string, model = 'gpt-5.4') => createSession(relay, { provider: 'codex-acp', model, cwd: folder, title: 'codex-acp', text });

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'relay-codex-acp-'));
  api = await startFakeOpenAiApi({ respond, models: ['gpt-5.4'] });
  const provider = `{name="relay",base_url="${api.url}",wire_api="responses",env_key="FAKE_OPENAI_KEY"}`;
  const settings = [
    `model_provider="relay"`,
    `model_providers.relay=${provider}`,
    // Every command is asked (the owner's card); Codex adds no sandbox of its own: the relay's encloses it.
    `approval_policy="untrusted"`,
    `sandbox_mode="danger-full-access"`,
    // The commands it runs are given the basic variables only, never its key: Codex's shell snapshot (the agent's
    // whole environment, replayed into every command whatever the policy says) is off.
    `shell_environment_policy.inherit="core"`,
    'features.shell_snapshot=false',
    'check_for_update_on_startup=false',
    'analytics.enabled=false',
  ];
  relay = await startRelay({
    name: 'desk',
    env: {
      RELAY_AGENT_SESSIONS: 'on',
      RELAY_ACP_AGENTS: JSON.stringify([
        {
          id: 'codex-acp',
          name: 'codex-acp',
          command: [codexAcp, ...settings.flatMap((setting) => ['-c', setting])],
          env: { FAKE_OPENAI_KEY: 'codex-acp-endpoint-key' },
        },
      ]),
    },
  });
});

afterAll(async () => {
  await relay?.stop();
  await api?.close();
  if (folder !== undefined) await rm(folder, { recursive: true, force: true });
});

describe('codex-acp, a real ACP agent, as a provider', () => {
  it('relay_info lists it as available with the models of its "model" option; no secret', async () => {
    const info = await relayToolResult(relay, { action: 'relay_info', relay: 'this' });
    const listed = info.providers.find((provider: any) => provider.id === 'codex-acp');
    expect(listed).toMatchObject({ name: 'codex-acp', available: true });
    expect(listed.models).toEqual(expect.arrayContaining(['gpt-5.4', 'gpt-5.4-mini']));
    expect(JSON.stringify(info)).not.toContain('codex-acp-endpoint-key');
  });

  it('runs a turn that replies, its model requests going to the configured endpoint with its key', async () => {
    const { id: sessionId, messageId } = await startTurn('hello');
    const turn = await finish(relay, sessionId, messageId);
    expect(turn.status, JSON.stringify(turn)).toBe('done');
    expect(turn.reply).toMatchObject({ text: 'hello from codex-acp', model: 'gpt-5.4' });
    expect(api.requests.at(-1)).toMatchObject({ path: '/v1/responses', authorization: 'Bearer codex-acp-endpoint-key', body: { model: 'gpt-5.4' } });
  });

  it('runs the turn on the model the session names (set through its "model" option)', async () => {
    const { id: sessionId, messageId } = await startTurn('hello', 'gpt-5.4-mini');
    const turn = await finish(relay, sessionId, messageId);
    expect(turn.status, JSON.stringify(turn)).toBe('done');
    expect(turn.reply).toMatchObject({ text: 'hello from codex-acp', model: 'gpt-5.4-mini' });
    expect(api.requests.at(-1)!.body.model).toBe('gpt-5.4-mini');
  });

  it('refuses a model it does not offer, with suggestions, before anything is created', async () => {
    const before = (await relay.api('GET', '/api/v1/sessions')).body.sessions.length;
    const refusal = await relayToolResult(relay, { action: 'create_session', relay: 'this', provider: 'codex-acp', model: 'gpt-5-4', text: 'hello' });
    expect(refusal).toMatchObject({ ok: false, code: 'REMOTE_RELAY_UNKNOWN_MODEL' });
    expect(refusal.suggestions).toContain('gpt-5.4');
    // Only the script session that asked was created.
    expect((await relay.api('GET', '/api/v1/sessions')).body.sessions.length).toBe(before + 1);
  });

  it("calls relay_tool through the relay's MCP endpoint with the session's token, once the owner allows the call", async () => {
    const { id: sessionId, messageId } = await startTurn('relay_tool: {"action":"list_sessions","relay":"this"}');
    // Codex asks before each call of an MCP tool its client gave it (codex-acp sets no approval mode for them).
    const card = await pendingCard(relay, sessionId);
    expect(card.title).toBe('codex-acp (gpt-5.4) wants to Approve Relay tool');
    expect(card.lines.join('\n')).toContain('Allow the relay MCP server to run tool \\"relay_tool\\"?');
    expect((await relay.api('POST', `/api/v1/cards/${card.id}`, { decision: 'allow' })).status).toBe(200);
    const turn = await finish(relay, sessionId, messageId);
    expect(turn.status, JSON.stringify(turn)).toBe('done');
    // The call reached the gateway as the session's owner's agent: its list holds this very session.
    // relay_tool's JSON result, as Codex passes on the MCP content.
    expect(turn.reply.text).toMatch(/^the tool said: .*ok\W+true/s);
    expect(turn.reply.text).toContain(sessionId);
  });

  it('asks the owner on a card for the command (its permission request); Allow runs it in the sandbox, in the session folder', async () => {
    const command = 'pwd > where.txt; ls /work/main/services /home > seen.txt 2>&1; env > env.txt; echo ran-here';
    const { id: sessionId, messageId } = await startTurn(`run: ${command}`);
    const card = await pendingCard(relay, sessionId);
    expect(card.title).toBe('codex-acp (gpt-5.4) wants to run a command');
    // The command as Codex runs it: its shell's argv.
    expect(card.lines).toEqual([`Folder: ${folder}`, `Command: /bin/bash -lc ${command}`, expect.stringMatching(/^Runs in: bubblewrap sandbox/)]);
    // Nothing ran before the owner's Allow.
    expect(existsSync(join(folder, 'where.txt'))).toBe(false);
    expect((await relay.api('POST', `/api/v1/cards/${card.id}`, { decision: 'allow' })).status).toBe(200);
    const turn = await finish(relay, sessionId, messageId);
    expect(turn.status, JSON.stringify(turn)).toBe('done');
    expect(turn.reply.text).toMatch(/^the tool said: .*ran-here/s);
    expect((await readFile(join(folder, 'where.txt'), 'utf8')).trim()).toBe(folder);
    // In the sandbox: no folder of the relay's or of the machine's users; neither the agent's key nor the session's
    // token, nor the relay's secrets, in the command's environment.
    expect(await readFile(join(folder, 'seen.txt'), 'utf8')).toMatch(
      /\/work\/main\/services.*No such file or directory[\s\S]*\/home.*No such file or directory/,
    );
    const env = await readFile(join(folder, 'env.txt'), 'utf8');
    for (const secret of ['codex-acp-endpoint-key', 'FAKE_OPENAI_KEY', 'DATABASE_URL', 'NATS']) expect(env).not.toContain(secret);
  });

  it('Deny: the command does not run, and Codex ends the turn', async () => {
    const { id: sessionId, messageId } = await startTurn('run: touch denied.txt');
    const card = await pendingCard(relay, sessionId);
    expect((await relay.api('POST', `/api/v1/cards/${card.id}`, { decision: 'deny' })).status).toBe(200);
    const turn = await finish(relay, sessionId, messageId);
    // codex-acp's only "no" is Codex's abort: the turn ends there, and says why.
    expect(turn, JSON.stringify(turn)).toMatchObject({ status: 'error', error: "codex-acp ended the turn on the owner's Deny: what it asked for did not run" });
    expect(existsSync(join(folder, 'denied.txt'))).toBe(false);
  });

  it('stop ends a turn mid-way (a command running): the turn is stopped, the command and the agent are gone, the model is asked nothing more', async () => {
    const { id: sessionId, messageId } = await startTurn(`run: ${tickingCommand('ticks.txt')}`);
    const asked = await stopWhileTicking(relay, { sessionId, messageId }, folder, () => api.requests.length);
    // The command's output never reached the model.
    expect(api.requests.slice(asked).filter((request) => JSON.stringify(request.body).includes('ticks.txt'))).toEqual([]);
  });

  it('usage meters no tokens for it: codex-acp reports none over ACP', async () => {
    // The endpoint answered with tokens on every response; codex-acp's prompt responses carry no usage and its
    // usage_update only the context window's fill, with no cost.
    expect(api.requests.length).toBeGreaterThan(0);
    const usage = await relayToolResult(relay, { action: 'usage', relay: 'this' });
    expect(usage.providers.find((provider: any) => provider.provider === 'codex-acp')).toMatchObject({ status: 'ok', meters: [{ name: 'tokens', used: 0 }] });
  });
});
