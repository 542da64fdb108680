// Issue 41, item 5, end to end with a real ACP agent: Gemini CLI (@google/gemini-cli, `gemini --acp`), configured in
// RELAY_ACP_AGENTS as any ACP agent is, its model requests going to the Gemini API this suite runs on loopback
// (test/harness/fake-gemini-api.ts) through GOOGLE_GEMINI_BASE_URL, its key in the agent's env. The relay starts it in
// its bubblewrap sandbox for each turn. A turn replies; the agent's one model is its `--model` (Gemini CLI offers its
// models through ACP's older session `models`, which the relay does not read: the entry lists it), and another model
// is refused with suggestions; the shell command the model asks for is its ACP permission request, the owner's
// approval card (Allow: the command runs in the sandbox, in the session's folder; Deny: it does not, and the model
// reads the refusal), and the command never sees the agent's key (Gemini CLI runs commands itself, with its own
// environment: the relay's `homeFiles` give it, read-only in its sandbox's home, the settings that redact it); stop
// ends a turn mid-way (the command and the agent gone, the model asked nothing more); the tokens it reports (its
// response's `_meta.quota.token_count`) show in usage. Only the model is a fake.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { geminiResponse, startFakeGeminiApi, type FakeGeminiApi } from '../harness/fake-gemini-api.ts';
import { startRelay, type Relay } from '../harness/relay.ts';
import { createSession, finish, pendingCard, relayToolResult } from '../harness/script-turns.ts';
import { stopWhileTicking, tickingCommand } from '../harness/ticking-command.ts';

const geminiCli = fileURLToPath(new URL('../../node_modules/@google/gemini-cli/', import.meta.url));
const MODEL = 'gemini-2.5-flash';
const KEY = 'gemini-endpoint-key';

/**
 * Gemini CLI's settings, as the relay puts them in its home: the commands it runs get its environment without the
 * key (redaction on, the key's name blocked besides the names it redacts anyway), and the session's folder stays
 * untrusted (folder trust on, no folder trusted), so a .gemini/settings.json there is not read.
 */
const SETTINGS = { security: { environmentVariableRedaction: { enabled: true, blocked: ['GEMINI_API_KEY'] }, folderTrust: { enabled: true } } };

let relay: Relay;
let api: FakeGeminiApi;
let folder: string;

/**
 * The fake model: "run: <command>" asks for Gemini CLI's run_shell_command, then answers with what it returned;
 * anything else is answered at once. Each answer reports 70 + 7 tokens.
 */
function answer(body: any): Record<string, unknown> {
  const contents: any[] = body.contents;
  const returned = contents.at(-1)?.parts?.find((part: any) => part.functionResponse)?.functionResponse;
  const said = [...contents].reverse().find((content) => content.role === 'user' && content.parts.some((part: any) => part.text));
  const asked = /run: (.*)$/m.exec(said?.parts.map((part: any) => part.text ?? '').join('') ?? '')?.[1];
  const usage = { input: 70, output: 7 };
  if (returned !== undefined) return geminiResponse({ text: `the tool said: ${JSON.stringify(returned.response)}` }, usage);
  if (asked !== undefined) return geminiResponse({ call: { name: 'run_shell_command', args: { command: asked, description: 'as asked' } } }, usage);
  return geminiResponse({ text: 'hello from Gemini CLI' }, usage);
}

/** A Gemini CLI session's first turn. */
const startTurn = (text: string) => createSession(relay, { provider: 'gemini', model: MODEL, cwd: folder, title: 'Gemini CLI', text });

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'relay-gemini-'));
  api = await startFakeGeminiApi(answer);
  relay = await startRelay({
    name: 'desk',
    env: {
      RELAY_AGENT_SESSIONS: 'on',
      RELAY_ACP_AGENTS: JSON.stringify([
        {
          id: 'gemini',
          name: 'Gemini CLI',
          // Node by its own path: the sandbox shows its folder read-only (a `node` on PATH may be a link out of it).
          command: [process.execPath, join(geminiCli, 'bundle', 'gemini.js'), '--acp', '--model', MODEL],
          readOnly: [geminiCli],
          env: { GEMINI_API_KEY: KEY, GOOGLE_GEMINI_BASE_URL: api.url, GEMINI_CLI_NO_RELAUNCH: 'true' },
          homeFiles: { '.gemini/settings.json': SETTINGS },
          models: [MODEL],
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

describe('Gemini CLI, a real ACP agent, as a provider', () => {
  it('relay_info lists it as available with its model; no secret', async () => {
    const info = await relayToolResult(relay, { action: 'relay_info', relay: 'this' });
    expect(info.providers.find((provider: any) => provider.id === 'gemini')).toMatchObject({ name: 'Gemini CLI', available: true, models: [MODEL] });
    expect(JSON.stringify(info)).not.toContain(KEY);
  });

  it('runs a turn that replies, its model requests going to the configured endpoint with its key', async () => {
    const { id: sessionId, messageId } = await startTurn('hello');
    const turn = await finish(relay, sessionId, messageId);
    expect(turn.status, JSON.stringify(turn)).toBe('done');
    expect(turn.reply).toMatchObject({ text: 'hello from Gemini CLI', model: MODEL });
    expect(api.requests.at(-1)).toMatchObject({ model: MODEL, apiKey: KEY });
  });

  it('refuses a model it does not offer, with suggestions, before anything is created', async () => {
    const before = (await relay.api('GET', '/api/v1/sessions')).body.sessions.length;
    const refusal = await relayToolResult(relay, { action: 'create_session', relay: 'this', provider: 'gemini', model: 'gemini-2.5-flsh', text: 'hello' });
    expect(refusal).toMatchObject({ ok: false, code: 'REMOTE_RELAY_UNKNOWN_MODEL', suggestions: [MODEL] });
    // Only the script session that asked was created.
    expect((await relay.api('GET', '/api/v1/sessions')).body.sessions.length).toBe(before + 1);
  });

  it('asks the owner on a card for the shell command (its permission request); Allow runs it in the sandbox, in the session folder', async () => {
    const command = 'pwd > where.txt; ls /work/main/services /home > seen.txt 2>&1; echo ran-here';
    const { id: sessionId, messageId } = await startTurn(`run: ${command}`);
    const card = await pendingCard(relay, sessionId);
    // Its request names the command only in its title (no rawInput): the card says what it says.
    expect(card.title).toBe(`Gemini CLI (${MODEL}) wants to ${command}`);
    expect(card.lines).toEqual([`Folder: ${folder}`, 'Kind: execute']);
    // Nothing ran before the owner's Allow.
    expect(existsSync(join(folder, 'where.txt'))).toBe(false);
    expect((await relay.api('POST', `/api/v1/cards/${card.id}`, { decision: 'allow' })).status).toBe(200);
    const turn = await finish(relay, sessionId, messageId);
    expect(turn.status, JSON.stringify(turn)).toBe('done');
    expect(turn.reply.text).toMatch(/^the tool said: .*ran-here/s);
    expect((await readFile(join(folder, 'where.txt'), 'utf8')).trim()).toBe(folder);
    // In the sandbox: no folder of the relay's or of the machine's users.
    expect(await readFile(join(folder, 'seen.txt'), 'utf8')).toMatch(
      /\/work\/main\/services.*No such file or directory[\s\S]*\/home.*No such file or directory/,
    );
  });

  it('Deny: the command does not run, and the model reads the refusal', async () => {
    const { id: sessionId, messageId } = await startTurn('run: touch denied.txt');
    const card = await pendingCard(relay, sessionId);
    expect((await relay.api('POST', `/api/v1/cards/${card.id}`, { decision: 'deny' })).status).toBe(200);
    const turn = await finish(relay, sessionId, messageId);
    expect(turn.status, JSON.stringify(turn)).toBe('done');
    expect(turn.reply.text).toMatch(/^the tool said: .*canceled by the user/);
    expect(existsSync(join(folder, 'denied.txt'))).toBe(false);
  });

  it("an allowed command does not see the agent's key, even with the session's folder asking for it", async () => {
    // The session's folder is the agent's to write: settings there that would turn the redaction off are not read.
    await mkdir(join(folder, '.gemini'), { recursive: true });
    await writeFile(join(folder, '.gemini', 'settings.json'), JSON.stringify({ security: { environmentVariableRedaction: { enabled: false } } }));
    try {
      const { id: sessionId, messageId } = await startTurn('run: env > env.txt; echo "key=$GEMINI_API_KEY"');
      expect((await relay.api('POST', `/api/v1/cards/${(await pendingCard(relay, sessionId)).id}`, { decision: 'allow' })).status).toBe(200);
      const turn = await finish(relay, sessionId, messageId);
      expect(turn.status, JSON.stringify(turn)).toBe('done');
      const env = await readFile(join(folder, 'env.txt'), 'utf8');
      // It ran with Gemini CLI's environment (its endpoint's address is there), the key taken out.
      expect(env).toContain(`GOOGLE_GEMINI_BASE_URL=${api.url}`);
      expect(env).not.toContain(KEY);
      expect(turn.reply.text).toContain('key=');
      expect(turn.reply.text).not.toContain(KEY);
    } finally {
      await rm(join(folder, '.gemini'), { recursive: true, force: true });
    }
  });

  it('stop ends a turn mid-way (a command running): the turn is stopped, the command and the agent are gone, the model is asked nothing more', async () => {
    const { id: sessionId, messageId } = await startTurn(`run: ${tickingCommand('ticks.txt')}`);
    const asked = await stopWhileTicking(relay, { sessionId, messageId }, folder, () => api.requests.length);
    // The command's output never reached the model: nothing was asked of it since.
    expect(api.requests.slice(asked)).toEqual([]);
  });

  it('usage meters the tokens Gemini CLI reported for its turns', async () => {
    const usage = await relayToolResult(relay, { action: 'usage', relay: 'this' });
    // hello: one answer; the commands' Allow, Deny and the key's: two each; the stopped turn reports none — 77 tokens each.
    expect(usage.providers.find((provider: any) => provider.provider === 'gemini')).toMatchObject({ status: 'ok', meters: [{ name: 'tokens', used: 7 * 77 }] });
  });
});
