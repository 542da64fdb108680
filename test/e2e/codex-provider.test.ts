// Issue 41, item 4, end to end: Codex as a provider, the real Codex CLI (`codex app-server`, the binary Codex's SDK
// brings) started by the relay inside its bubblewrap sandbox for each turn, its model requests going to the
// OpenAI-compatible server this suite runs on loopback (test/harness/fake-openai-api.ts, its Responses API) through
// RELAY_CODEX_BASE_URL. A turn replies; the command the model asks for (Codex's exec_command) is the owner's
// approval card: Allow runs it in the sandbox, in the session's folder, Deny does not; stop ends a turn mid-way
// within 5 s; a model the endpoint does not list is refused with suggestions before anything is created, another
// provider's id with that provider's code; the tokens Codex reports show in usage.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finishTurn } from '../harness/fake-anthropic-api.ts';
import { responseEvents, startFakeOpenAiApi, type FakeOpenAiApi } from '../harness/fake-openai-api.ts';
import { startRelay, type Relay } from '../harness/relay.ts';
import { until } from '../harness/until.ts';

let relay: Relay;
let api: FakeOpenAiApi;
let folder: string;

/** The text of a Responses API input item (a message's parts, or a tool's output). */
const textOf = (item: any): string => (typeof item.content === 'string' ? item.content : (item.content ?? []).map((part: any) => part.text ?? '').join(''));

/**
 * The fake model: "run: <command>" asks for Codex's exec_command, then answers with what the tool returned;
 * anything else is answered at once. Each answer reports 50 + 5 tokens.
 */
function respond(body: any): string[] {
  const input: any[] = body.input;
  const lastUser = [...input].reverse().find((item) => item.type === 'message' && item.role === 'user');
  const asked = /run: (.*)$/m.exec(textOf(lastUser))?.[1];
  const output = input.at(-1)?.type === 'function_call_output' ? input.at(-1) : undefined;
  const usage = { input: 50, output: 5 };
  if (asked !== undefined && output === undefined) return responseEvents({ call: { name: 'exec_command', arguments: { cmd: asked } } }, usage);
  return responseEvents({ text: output === undefined ? 'hello from Codex' : `the tool said: ${String(output.output).trim()}` }, usage);
}

/** The session's first pending card, once it is raised. */
const cardOf = (sessionId: string) => until('the Codex card', async () => (await relay.api('GET', `/api/v1/cards?session=${sessionId}&pending=1`)).body.cards[0]);

/** relay_tool from a script session: its result. */
async function relayTool(call: Record<string, unknown>): Promise<any> {
  const created = await relay.api('POST', '/api/v1/sessions', { provider: 'script', title: 'Tool', text: `relay_tool ${JSON.stringify(call)}` });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const turn = await finishTurn(relay, created.body.session.id, created.body.message_id);
  expect(turn.status, JSON.stringify(turn)).toBe('done');
  return JSON.parse(turn.reply.text);
}

async function startTurn(text: string): Promise<{ sessionId: string; messageId: string }> {
  const created = await relay.api('POST', '/api/v1/sessions', { provider: 'codex', model: 'gpt-5.4', cwd: folder, title: 'Codex', text });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { sessionId: created.body.session.id, messageId: created.body.message_id };
}

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'relay-codex-e2e-'));
  api = await startFakeOpenAiApi({ respond, models: ['gpt-5.4', 'gpt-5.4-mini'] });
  relay = await startRelay({
    name: 'desk',
    env: { RELAY_AGENT_SESSIONS: 'on', RELAY_CODEX_BASE_URL: api.url, RELAY_CODEX_API_KEY: 'codex-endpoint-key' },
  });
});

afterAll(async () => {
  await relay?.stop();
  await api?.close();
  if (folder !== undefined) await rm(folder, { recursive: true, force: true });
});

describe('Codex as a provider (its CLI against an OpenAI-compatible endpoint)', () => {
  it('relay_info lists it as available with the models discovered from the endpoint; no secret', async () => {
    const info = await relayTool({ action: 'relay_info', relay: 'this' });
    expect(info.providers.find((provider: any) => provider.id === 'codex')).toMatchObject({ name: 'Codex', available: true, models: ['gpt-5.4', 'gpt-5.4-mini'] });
    expect(JSON.stringify(info)).not.toContain('codex-endpoint-key');
  });

  it('runs a turn that replies, its model requests going to the configured endpoint with its key', async () => {
    const { sessionId, messageId } = await startTurn('hello');
    const turn = await finishTurn(relay, sessionId, messageId);
    expect(turn.status, JSON.stringify(turn)).toBe('done');
    expect(turn.reply).toMatchObject({ text: 'hello from Codex', model: 'gpt-5.4' });
    expect(api.requests.at(-1)).toMatchObject({ path: '/v1/responses', authorization: 'Bearer codex-endpoint-key', body: { model: 'gpt-5.4', stream: true } });
  });

  it("refuses a model the endpoint does not list, with the close match, and another provider's id with its code, before anything is created", async () => {
    const before = (await relay.api('GET', '/api/v1/sessions')).body.sessions.length;
    const unknown = await relayTool({ action: 'create_session', relay: 'this', provider: 'codex', model: 'gpt-5-4', text: 'hello' });
    expect(unknown).toMatchObject({ ok: false, code: 'REMOTE_RELAY_UNKNOWN_MODEL', suggestions: ['gpt-5.4'] });
    const claudeId = await relayTool({ action: 'create_session', relay: 'this', provider: 'codex', model: 'claude-sonnet-5-5', text: 'hello' });
    expect(claudeId).toMatchObject({ ok: false, code: 'CLAUDE_PROVIDER_REQUIRED' });
    // Only the two script sessions that asked were created.
    expect((await relay.api('GET', '/api/v1/sessions')).body.sessions.length).toBe(before + 2);
  });

  it('asks the owner on a card for the command; Allow runs it in the sandbox, in the session folder', async () => {
    const command = 'pwd > where.txt; ls /work/main/services /home > seen.txt 2>&1; env > env.txt; echo ran-here';
    const { sessionId, messageId } = await startTurn(`run: ${command}`);
    const card = await cardOf(sessionId);
    expect(card.title).toBe('Codex (gpt-5.4) wants to run a command');
    expect(card.lines).toEqual([`Folder: ${folder}`, expect.stringContaining(command), expect.stringMatching(/^Runs in: bubblewrap sandbox/)]);
    // Nothing ran before the owner's Allow.
    expect(existsSync(join(folder, 'where.txt'))).toBe(false);
    expect((await relay.api('POST', `/api/v1/cards/${card.id}`, { decision: 'allow' })).status).toBe(200);
    const turn = await finishTurn(relay, sessionId, messageId);
    expect(turn.status, JSON.stringify(turn)).toBe('done');
    expect(turn.reply.text).toMatch(/^the tool said: .*ran-here/s);
    expect((await readFile(join(folder, 'where.txt'), 'utf8')).trim()).toBe(folder);
    // In the sandbox: no folder of the relay's or of the machine's users; none of the relay's secrets, nor Codex's
    // own key or the session's token, in the command's environment.
    expect(await readFile(join(folder, 'seen.txt'), 'utf8')).toMatch(/\/work\/main\/services.*No such file or directory[\s\S]*\/home.*No such file or directory/);
    const env = await readFile(join(folder, 'env.txt'), 'utf8');
    for (const secret of ['codex-endpoint-key', 'RELAY_CODEX_KEY', 'RELAY_SESSION_TOKEN', 'DATABASE_URL', 'NATS']) expect(env).not.toContain(secret);
  });

  it('Deny: the command does not run, and the model reads the refusal', async () => {
    const { sessionId, messageId } = await startTurn('run: touch denied.txt');
    const card = await cardOf(sessionId);
    expect((await relay.api('POST', `/api/v1/cards/${card.id}`, { decision: 'deny' })).status).toBe(200);
    const turn = await finishTurn(relay, sessionId, messageId);
    expect(turn.status, JSON.stringify(turn)).toBe('done');
    expect(turn.reply.text).toMatch(/^the tool said: .*rejected/);
    expect(existsSync(join(folder, 'denied.txt'))).toBe(false);
  });

  it('stop ends a turn mid-way (a command running) within 5 s', async () => {
    const { sessionId, messageId } = await startTurn('run: sleep 60');
    const card = await cardOf(sessionId);
    expect((await relay.api('POST', `/api/v1/cards/${card.id}`, { decision: 'allow' })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const stoppedAt = Date.now();
    expect((await relay.api('POST', `/api/v1/sessions/${sessionId}/stop`, {})).status).toBeLessThan(300);
    const turn = await finishTurn(relay, sessionId, messageId);
    expect(turn.status, JSON.stringify(turn)).toBe('stopped');
    expect(Date.now() - stoppedAt).toBeLessThan(5_000);
  });

  it('usage meters the tokens Codex reported for its turns', async () => {
    const usage = await relayTool({ action: 'usage', relay: 'this' });
    // hello: one answer; Allow and Deny: two each; the stopped turn: one (its command was running) — 55 tokens each.
    expect(usage.providers.find((provider: any) => provider.provider === 'codex')).toMatchObject({ status: 'ok', meters: [{ name: 'tokens', used: 6 * 55 }] });
  });
});
