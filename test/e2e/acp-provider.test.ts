// Issue 41, item 5, end to end: an ACP agent (RELAY_ACP_AGENTS) as a provider, against a fake agent this suite runs
// (test/harness/fake-acp-agent.mjs) that speaks the Agent Client Protocol on stdio through the official SDK's agent
// side. The relay starts it in its bubblewrap sandbox for each turn; its models are discovered from its "model"
// config option at start; its permission request for a command is the owner's approval card (Allow: the command runs
// in a terminal the relay serves, in the sandbox; Deny: it does not); stop sends session/cancel; the tokens it reports
// show in usage. An agent whose program is missing (gemini: not installed here) stays listed, unavailable, with why.
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRelay, type Relay } from '../harness/relay.ts';
import { createSession, finish, pendingCard, relayToolResult } from '../harness/script-turns.ts';
import { until } from '../harness/until.ts';

const harness = fileURLToPath(new URL('../harness/', import.meta.url));
const nodeModules = fileURLToPath(new URL('../../node_modules/', import.meta.url));

let relay: Relay;
let folder: string;

/** A session of the fake ACP agent, its first turn. */
const startTurn = (text: string, model = 'fake-pro-2') => createSession(relay, { provider: 'fake', model, cwd: folder, title: 'ACP', text });

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'relay-acp-'));
  relay = await startRelay({
    name: 'desk',
    env: {
      RELAY_AGENT_SESSIONS: 'on',
      RELAY_ACP_AGENTS: JSON.stringify([
        {
          id: 'fake',
          name: 'Fake ACP',
          command: ['node', join(harness, 'fake-acp-agent.mjs')],
          readOnly: [harness, nodeModules],
          env: { FAKE_AGENT_KEY: 'acp-secret-key' },
        },
        { id: 'gemini', name: 'Gemini CLI', command: ['gemini-not-installed', '--experimental-acp'] },
      ]),
    },
  });
});

afterAll(async () => {
  await relay?.stop();
  if (folder !== undefined) await rm(folder, { recursive: true, force: true });
});

describe('an ACP agent as a provider', () => {
  it('relay_info lists it with the models it offers; a missing agent is unavailable, with why', async () => {
    const info = await relayToolResult(relay, { action: 'relay_info', relay: 'this' });
    expect(info.providers.find((provider: any) => provider.id === 'fake')).toMatchObject({
      name: 'Fake ACP',
      available: true,
      models: ['fake-pro-2', 'fake-flash-2'],
    });
    expect(info.providers.find((provider: any) => provider.id === 'gemini')).toMatchObject({
      available: false,
      reason: "the ACP agent's program gemini-not-installed is not on the relay's PATH on this machine (RELAY_ACP_AGENTS)",
    });
    expect(JSON.stringify(info)).not.toContain('acp-secret-key');
  });

  it('runs a turn that replies, on the model the session names', async () => {
    const { id: sessionId, messageId } = await startTurn('hello', 'fake-flash-2');
    const turn = await finish(relay, sessionId, messageId);
    expect(turn.status, JSON.stringify(turn)).toBe('done');
    expect(turn.reply).toMatchObject({ text: 'echo (fake-flash-2): hello', model: 'fake-flash-2' });
  });

  it('refuses a model the agent does not offer, with suggestions, before anything is created', async () => {
    const refusal = await relayToolResult(relay, { action: 'create_session', relay: 'this', provider: 'fake', model: 'fake-flash', text: 'hello' });
    expect(refusal).toMatchObject({ ok: false, code: 'REMOTE_RELAY_UNKNOWN_MODEL', suggestions: ['fake-flash-2'] });
  });

  it('asks the owner on a card for the command it wants; Allow runs it in the sandbox, in the session folder', async () => {
    const { id: sessionId, messageId } = await startTurn('run: pwd > where.txt; echo ran-here');
    const card = await pendingCard(relay, sessionId);
    expect(card.title).toBe('Fake ACP (fake-pro-2) wants to run a command');
    expect(card.lines).toEqual([`Folder: ${folder}`, 'Command: pwd > where.txt; echo ran-here', expect.stringMatching(/^Runs in: bubblewrap sandbox/)]);
    expect((await relay.api('POST', `/api/v1/cards/${card.id}`, { decision: 'allow' })).status).toBe(200);
    const turn = await finish(relay, sessionId, messageId);
    expect(turn.status, JSON.stringify(turn)).toBe('done');
    expect(turn.reply.text).toBe('ran (exit 0): ran-here');
    expect((await readFile(join(folder, 'where.txt'), 'utf8')).trim()).toBe(folder);
  });

  it('Deny: the command does not run, and the agent reads the refusal', async () => {
    const { id: sessionId, messageId } = await startTurn('run: touch denied.txt');
    const card = await pendingCard(relay, sessionId);
    expect((await relay.api('POST', `/api/v1/cards/${card.id}`, { decision: 'deny' })).status).toBe(200);
    const turn = await finish(relay, sessionId, messageId);
    expect(turn).toMatchObject({ status: 'done', reply: { text: 'refused' } });
    expect(existsSync(join(folder, 'denied.txt'))).toBe(false);
  });

  it("writes and reads files in the sandbox on the owner's Allow: the file appears in the folder, and never in its masked .relay folder", async () => {
    const write = await startTurn('write: notes/plan.txt step one');
    const card = await pendingCard(relay, write.id);
    expect(card.title).toBe('Fake ACP (fake-pro-2) wants to write a file');
    expect((await relay.api('POST', `/api/v1/cards/${card.id}`, { decision: 'allow' })).status).toBe(200);
    expect(await finish(relay, write.id, write.messageId)).toMatchObject({ status: 'done', reply: { text: 'wrote' } });
    expect(await readFile(join(folder, 'notes', 'plan.txt'), 'utf8')).toBe('step one');
    const read = await startTurn('read: notes/plan.txt');
    expect(await finish(relay, read.id, read.messageId)).toMatchObject({ status: 'done', reply: { text: 'read: step one' } });
    // The relay's state folder inside the session's folder: the path check lets it through, the sandbox does not.
    await mkdir(join(folder, '.relay'));
    const planted = await startTurn('write: .relay/planted.json {"token":"x"}');
    const plantedCard = await pendingCard(relay, planted.id);
    expect((await relay.api('POST', `/api/v1/cards/${plantedCard.id}`, { decision: 'allow' })).status).toBe(200);
    const turn = await finish(relay, planted.id, planted.messageId);
    expect(turn.status, JSON.stringify(turn)).toBe('done');
    expect(turn.reply.text).toMatch(/^write failed: The file could not be written in the sandbox: .*(Read-only file system|Permission denied)/);
    expect(existsSync(join(folder, '.relay', 'planted.json'))).toBe(false);
  });

  it('stop interrupts a turn mid-way (session/cancel)', async () => {
    const { id: sessionId, messageId } = await startTurn('hang');
    await until('the agent working', async () =>
      (await relay.api('GET', `/api/v1/sessions/${sessionId}`)).body.inFlight?.includes('working') ? true : undefined,
    );
    expect((await relay.api('POST', `/api/v1/sessions/${sessionId}/stop`, {})).status).toBeLessThan(300);
    const turn = await finish(relay, sessionId, messageId);
    expect(turn.status, JSON.stringify(turn)).toBe('stopped');
  });

  it('usage meters the tokens the agent reported for its turns', async () => {
    const usage = await relayToolResult(relay, { action: 'usage', relay: 'this' });
    // Seven turns reached the agent's answer (hello, Allow, Deny, the write, the read, the planted write, the stopped
    // one), 300 + 40 tokens each.
    expect(usage.providers.find((provider: any) => provider.provider === 'fake')).toMatchObject({ status: 'ok', meters: [{ name: 'tokens', used: 7 * 340 }] });
  });
});
