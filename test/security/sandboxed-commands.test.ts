// Issue 37: an allowed command reaches its session's folder, not the relay. The owner Allows a command that tries,
// as an attacker would, every read of the relay's secrets (fixtures/sandbox-probe.mjs): the credentials file of a
// state folder, /proc/*/environ and cmdline of every relay process (by their ids too), the repository's state
// folder, another user's session folder (reading and writing), and NATS, PostgreSQL and the relay's gRPC with what
// it found. The same command runs through the script agent's `task` and through the OpenAI-compatible provider's
// run_command (the loopback fake API asks for it). The findings are read from the session's folder, never from
// the task's output (which blanks credentials, and would hide a leak).
import { readFile, mkdir, mkdtemp, realpath, rm, writeFile, copyFile, access } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunk, DONE, startFakeOpenAiApi, usageChunk, type FakeOpenAiApi } from '../harness/fake-openai-api.ts';
import { callUserApi, startRelay, type Relay } from '../harness/relay.ts';
import { until } from '../harness/until.ts';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const PROVIDER_KEY = 'sk-relay-openai-key-not-for-commands';
const RUNS_IN = /^Runs in: bubblewrap sandbox — reads and writes only (\S+); no relay file, process or secret$/;

let relay: Relay;
let api: FakeOpenAiApi;
let root: string;
let otherFolder: string;
let otherToken: string;
/** Whether this machine's PostgreSQL lets a client in on loopback with no password (CI's trusts loopback). */
let postgresTrustsLoopback: boolean;

/** The probe's command line: its targets as one base64url argument. */
function probeCommand(): string {
  const { hostname, port } = new URL(relay.connection.databaseUrls.session);
  const targets = {
    files: [
      '.relay/credentials.json',
      join(repoRoot, '.relay', 'credentials.json'),
      join(repoRoot, '.relay', 'nats.conf'),
      join(repoRoot, '.relay', 'pg-password'),
      join(otherFolder, 'secret.txt'),
      '/etc/shadow',
    ],
    folders: [repoRoot, join(repoRoot, '.relay'), otherFolder, root, '/root', '/home', '/var', '/run'],
    pids: Object.values(relay.services)
      .flatMap((service) => (service.pid === undefined ? [] : [service.pid]))
      .concat(process.pid),
    otherFolder,
    natsPort: Number(new URL(relay.connection.bus.url).port),
    pgPort: hostname === '127.0.0.1' || hostname === 'localhost' ? Number(port || 5432) : 5432,
    grpcAddress: relay.connection.sessionAddress,
  };
  return `node probe.mjs ${Buffer.from(JSON.stringify(targets)).toString('base64url')}`;
}

/** Every secret of the relay's the command must not find: service tokens and keys, bus passwords, users' tokens, the provider key, the databases. */
function secrets(): string[] {
  const { credentials, bus, databaseUrls } = relay.connection;
  return [
    ...Object.values(credentials.tokens),
    ...credentials.keys.split(',').map((entry) => entry.split(':')[1] ?? entry),
    ...bus.passwords,
    relay.userToken,
    otherToken,
    PROVIDER_KEY,
    ...Object.values(databaseUrls).map((url) => new URL(url).pathname.slice(1)),
  ].filter((secret) => secret.length >= 8);
}

/** A folder for a session of the signed-in owner, holding the probe and a state folder with the owner's real token. */
async function sessionFolder(name: string): Promise<string> {
  const folder = join(root, name);
  await mkdir(join(folder, '.relay'), { recursive: true });
  await copyFile(new URL('./fixtures/sandbox-probe.mjs', import.meta.url), join(folder, 'probe.mjs'));
  await writeFile(join(folder, '.relay', 'credentials.json'), JSON.stringify({ admin: relay.userToken }));
  return folder;
}

/** Allows the session's command cards as its owner, once each says where it runs; the lines of the cards allowed. */
async function allowCommands(sessionId: string, messageId: string): Promise<string[][]> {
  const allowed: string[][] = [];
  for (;;) {
    const { body } = await relay.api('GET', `/api/v1/cards?session=${sessionId}&pending=1`);
    for (const card of body.cards ?? []) {
      allowed.push(card.lines);
      const decided = await relay.api('POST', `/api/v1/cards/${card.id}`, { decision: 'allow' });
      expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    }
    const result = await relay.api('GET', `/api/v1/sessions/${sessionId}/wait?message_id=${messageId}&wait_seconds=1`);
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    if (!['queued', 'running', 'waiting_for_answer'].includes(result.body.status)) return allowed;
  }
}

/** Runs the probe as `provider`'s command in a new session; the cards allowed and the findings it wrote. */
async function probeThrough(provider: 'script' | 'openai', folder: string): Promise<{ cards: string[][]; findings: any }> {
  const command = probeCommand();
  const text = provider === 'script' ? `task ${command}\nreply {{result.ok}}` : `Please run: ${command}`;
  const created = await relay.api('POST', '/api/v1/sessions', {
    provider,
    ...(provider === 'openai' ? { model: 'fake-1' } : {}),
    title: `Probe ${provider}`,
    text,
    cwd: folder,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const cards = await allowCommands(created.body.session.id, created.body.message_id);
  const findings = await until('the probe wrote its findings', async () => {
    const read = await readFile(join(folder, 'findings.json'), 'utf8').catch(() => undefined);
    return read === undefined ? undefined : JSON.parse(read);
  });
  return { cards, findings };
}

/** The fake model: asks for run_command with the command the prompt names, then says it is done. */
function answer(body: any): string[] {
  if (body.messages.some((message: any) => message.role === 'tool'))
    return [chunk({ role: 'assistant', content: 'done' }), chunk({}, 'stop'), usageChunk(10, 1), DONE];
  const command = String(body.messages.at(-1).content).replace(/^Please run: /, '');
  return [
    chunk({
      role: 'assistant',
      content: null,
      tool_calls: [
        { index: 0, id: 'call_1', type: 'function', function: { name: 'run_command', arguments: JSON.stringify({ command, description: 'probe' }) } },
      ],
    }),
    chunk({}, 'tool_calls'),
    usageChunk(10, 1),
    DONE,
  ];
}

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'relay-sandbox-e2e-')));
  api = await startFakeOpenAiApi({ answer, models: ['fake-1'] });
  relay = await startRelay({ name: 'desk', env: { RELAY_OPENAI_BASE_URL: api.url, RELAY_OPENAI_API_KEY: PROVIDER_KEY } });
  // Another user of the relay, with a session in a folder of their own holding a secret.
  const other = await relay.api('POST', '/api/v1/users', { name: 'Bo' });
  expect(other.status, JSON.stringify(other.body)).toBe(201);
  otherToken = other.body.token;
  otherFolder = join(root, 'bo');
  await mkdir(otherFolder);
  await writeFile(join(otherFolder, 'secret.txt'), 'bo-private-notes-1234');
  const theirs = await callUserApi(relay.gatewayUrl, otherToken, 'POST', '/api/v1/sessions', {
    provider: 'script',
    title: 'Bo',
    text: 'reply hi',
    cwd: otherFolder,
  });
  expect(theirs.status, JSON.stringify(theirs.body)).toBe(201);
  const client = new pg.Client({ connectionString: relay.connection.databaseUrls.session.replace(/\/\/[^@/]*@/, '//postgres@'), password: '' });
  postgresTrustsLoopback = await client.connect().then(
    () => true,
    () => false,
  );
  await client.end().catch(() => undefined);
});

afterAll(async () => {
  await relay?.stop();
  await api?.close();
  await rm(root, { recursive: true, force: true });
});

describe.each(['script', 'openai'] as const)('an allowed command through the %s provider', (provider) => {
  let folder: string;
  let cards: string[][];
  let findings: any;

  beforeAll(async () => {
    folder = await sessionFolder(`ada-${provider}`);
    ({ cards, findings } = await probeThrough(provider, folder));
  }, 120_000);

  it('was allowed on one approval card that said where it runs: the bubblewrap sandbox of its folder', () => {
    expect(cards).toHaveLength(1);
    expect(cards[0]![0]).toBe(`Folder: ${folder}`);
    expect(cards[0]!.at(-1)).toMatch(RUNS_IN);
    expect(cards[0]!.at(-1)!.match(RUNS_IN)![1]!.replace(/;$/, '')).toBe(folder);
  });

  it('found none of the relay’s secrets anywhere it looked: service tokens and keys, NATS passwords, users’ tokens, the provider key, database names', () => {
    const everything = JSON.stringify(findings);
    const leaked = secrets().filter((secret) => everything.includes(secret));
    expect(leaked).toEqual([]);
    expect(everything).not.toContain('bo-private-notes-1234');
  });

  it('read no credentials file: the state folder in its own folder is empty, the repository’s and another user’s are not there', () => {
    expect(findings.files).toEqual({
      '.relay/credentials.json': 'ERR ENOENT',
      [join(repoRoot, '.relay', 'credentials.json')]: 'ERR ENOENT',
      [join(repoRoot, '.relay', 'nats.conf')]: 'ERR ENOENT',
      [join(repoRoot, '.relay', 'pg-password')]: 'ERR ENOENT',
      [join(otherFolder, 'secret.txt')]: 'ERR ENOENT',
      '/etc/shadow': 'ERR ENOENT',
    });
    // Of the folder above its own it sees only its own; of the machine's, none.
    expect(findings.lists[root]).toEqual([`ada-${provider}`]);
    for (const path of [repoRoot, join(repoRoot, '.relay'), otherFolder, '/root', '/home', '/var', '/run'])
      expect(findings.lists[path], path).toBe('ERR ENOENT');
  });

  it('saw no relay process: /proc holds only its own, and each relay process’s environ, cmdline, fds and memory map are out of reach', () => {
    const relayPids = Object.values(relay.services).map((service) => String(service.pid));
    for (const pid of [...relayPids, String(process.pid)]) {
      expect(findings.proc[pid], pid).toEqual({ cmdline: 'ERR ENOENT', environ: 'ERR ENOENT', fd: 'ERR ENOENT', mem: 'ERR ENOENT' });
    }
    const visible = Object.entries(findings.proc).filter(([, seen]: [string, any]) => seen.cmdline !== 'ERR ENOENT');
    expect(visible.map(([, seen]: [string, any]) => seen.cmdline).join('\n')).not.toMatch(/dist\/main\.js|vitest|nats-server|postgres/);
    expect(visible.length).toBeLessThan(6);
  });

  it('started with no credential in its environment', () => {
    expect(Object.keys(findings.env).filter((name) => /TOKEN|PASSWORD|KEY|SECRET|DATABASE|NATS|GRPC|RELAY_/.test(name))).toEqual([]);
  });

  it('could not write into another user’s folder', async () => {
    expect(findings.write).toBe('ERR ENOENT');
    await expect(access(join(otherFolder, 'written-by-another-user.txt'))).rejects.toThrow(/ENOENT/);
  });

  it('knocking on NATS and the relay’s gRPC with what it found (nothing) got it nothing', () => {
    expect(findings.nats.reply).toMatch(/-ERR 'Authorization Violation'/);
    expect(findings.grpc).toEqual({ status: 16 });
  });

  // Where the machine's PostgreSQL trusts loopback (CI's does), anything on the machine gets in without a password:
  // that is the machine's configuration, not a secret the sandbox let out (relay up's PostgreSQL asks for one).
  it('knocking on PostgreSQL with what it found (nothing) got a password asked for, which it does not have', (context) => {
    if (postgresTrustsLoopback) context.skip('this machine’s PostgreSQL trusts loopback connections');
    expect(findings.postgres.kind).toBe('R');
    expect(findings.postgres.authentication).not.toBe(0);
  });
});
