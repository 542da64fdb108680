// Pairing over real gRPC against real PostgreSQL: two pairing services (relay-a and relay-b, each with its own
// database) pair with a one-time code. The HTTP hop between them (/relay/v1/pair on relay-b's gateway) is the
// RelayLink port, here handing the offer straight to relay-b's AcceptPairing over gRPC.
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '@relay/clock';
import { AgentLevel, PairingServiceClient, PairingServiceService } from '@relay/proto/relay/pairing/v1/pairing_service';
import { callUnary, createClient, startGrpcServer, type GrpcServer } from '@relay/rpc';
import { createLogger } from '@relay/telemetry';
import { createTestDatabase, makeTestCredentials, type TestDatabase } from '@relay/testing';
import { nodeSecrets } from '../src/adapters/crypto/node-secrets.ts';
import { offline } from '../src/domain/errors.ts';
import { probeLinks } from '../src/app/probe-links.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { PAIRING_CALLERS } from '../src/adapters/grpc/pairing-callers.ts';
import { pairingGrpc } from '../src/adapters/grpc/pairing-grpc.ts';
import type { RelayLink } from '../src/app/ports.ts';
import { PrismaPairedRelayStore } from '../src/adapters/store/prisma-paired-relay-store.ts';
import { PrismaPairingCodeStore } from '../src/adapters/store/prisma-pairing-code-store.ts';
import { PrismaPairingSettingsStore } from '../src/adapters/store/prisma-pairing-settings-store.ts';

const credentials = makeTestCredentials();
const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const logger = createLogger({ name: 'pairing-test', level: 'silent' });
const clock = new ManualClock(new Date('2026-11-30T10:00:00.000Z'));
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

interface Side {
  database: TestDatabase;
  prisma: PrismaClient;
  server: GrpcServer;
  client: PairingServiceClient;
}

let a: Side;
let b: Side;
/** What relay-a offered relay-b in the last pairing: the token relay-b calls relay-a with. */
const offers: { token: string }[] = [];

const link: RelayLink = {
  async pair(_url, offer) {
    offers.push(offer);
    return callUnary(b.client, 'acceptPairing', { ...offer, selfName: bName, selfVersion: '0.9.19' });
  },
  async hello() {
    if (helloAnswer instanceof Error) throw helloAnswer;
    return helloAnswer;
  },
  async callTool() {
    throw new Error('not called here');
  },
};
/** The name relay-b answers a pairing with. */
let bName = 'relay-b';
/** What relay-b answers a probe (GET /relay/v1/hello) with. */
let helloAnswer: { name: string; version: string } | Error = { name: 'relay-b', version: '0.9.19' };

async function startSide(): Promise<Side> {
  const database = await createTestDatabase({ migrationsDir });
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
  const server = await startGrpcServer({
    auth: credentials.auth('pairing'),
    port: 0,
    host: '127.0.0.1',
    services: [
      {
        definition: PairingServiceService,
        callers: PAIRING_CALLERS,
        implementation: pairingGrpc({
          relays: new PrismaPairedRelayStore(prisma),
          codes: new PrismaPairingCodeStore(prisma),
          settings: new PrismaPairingSettingsStore(prisma),
          secrets: nodeSecrets,
          link,
          clock,
          logger,
        }),
      },
    ],
    logger,
  });
  return { database, prisma, server, client: createClient(PairingServiceClient, `127.0.0.1:${server.port}`, credentials.auth('gateway')) };
}

const pairAWithB = (code: string) =>
  callUnary(a.client, 'pair', {
    userId: 'user-a',
    url: 'http://127.0.0.1:7421',
    code,
    selfName: 'relay-a',
    selfUrl: 'http://127.0.0.1:7420',
    selfVersion: '0.9.19',
  });

/** Ends the pairing on both sides, as both users would, so the relays may pair again. */
async function unpairBoth(): Promise<void> {
  await callUnary(a.client, 'unpair', { name: 'relay-b' }).catch(() => undefined);
  await callUnary(b.client, 'unpair', { name: 'relay-a' }).catch(() => undefined);
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as { code: string }).code;
  }
  throw new Error('the call was not refused');
}

beforeAll(async () => {
  [a, b] = await Promise.all([startSide(), startSide()]);
});

afterAll(async () => {
  for (const side of [a, b]) {
    side?.client.close();
    await side?.server.shutdown();
    await side?.prisma.$disconnect();
    await side?.database.drop();
  }
});

describe('pairing with a one-time code', () => {
  it('leaves each side a token for the other, kept only as a hash where it is verified', async () => {
    const { code } = await callUnary(b.client, 'createPairingCode', { userId: 'user-b' });
    expect(await b.prisma.pairingCode.findFirst()).toMatchObject({ codeHash: sha256(code.replace(/-/g, '')), userId: 'user-b', usedAt: null });

    const { relay } = await pairAWithB(code);
    expect(relay).toMatchObject({
      name: 'relay-b',
      url: 'http://127.0.0.1:7421',
      level: AgentLevel.AGENT_LEVEL_FULL,
      online: true,
      version: '0.9.19',
      ownerUserId: 'user-a',
    });

    const onA = await a.prisma.pairedRelay.findUniqueOrThrow({ where: { name: 'relay-b' } });
    const onB = await b.prisma.pairedRelay.findUniqueOrThrow({ where: { name: 'relay-a' } });
    const offered = offers.at(-1)!.token;
    expect(offered).toMatch(/^[\w-]{43,}$/);
    // relay-a keeps the hash of the token relay-b calls it with, and relay-b's token in full to call relay-b with.
    expect(onA.inboundTokenHash).toBe(sha256(offered));
    expect(JSON.stringify(onA)).not.toContain(offered);
    expect(onB).toMatchObject({ url: 'http://127.0.0.1:7420', ownerUserId: 'user-b', outboundToken: offered, level: 'full' });
    expect(onB.inboundTokenHash).toBe(sha256(onA.outboundToken));
    expect(JSON.stringify(onB)).not.toContain(onA.outboundToken);

    // Each side recognises the other's token, and the call acts for the user who made that side's pairing, at the
    // level that side grants the pairing (a new pairing: full).
    const full = AgentLevel.AGENT_LEVEL_FULL;
    expect(await callUnary(b.client, 'authenticateRelay', { token: onA.outboundToken })).toEqual({
      relayName: 'relay-a',
      userId: 'user-b',
      acceptPrompts: true,
      level: full,
    });
    expect(await callUnary(a.client, 'authenticateRelay', { token: offered })).toEqual({
      relayName: 'relay-b',
      userId: 'user-a',
      acceptPrompts: true,
      level: full,
    });
    expect(await refusal(callUnary(b.client, 'authenticateRelay', { token: offered }))).toBe('REMOTE_RELAY_AUTH');
    expect(await refusal(callUnary(b.client, 'authenticateRelay', { token: '' }))).toBe('REMOTE_RELAY_AUTH');
  });

  it('spends a code once, and not after it expired; a refused pairing keeps nothing', async () => {
    const { code } = await callUnary(b.client, 'createPairingCode', { userId: 'user-b' });
    await unpairBoth();
    await pairAWithB(code);
    await unpairBoth();
    expect(await refusal(pairAWithB(code))).toBe('REMOTE_RELAY_AUTH');
    expect(await a.prisma.pairedRelay.count()).toBe(0);

    const late = await callUnary(b.client, 'createPairingCode', { userId: 'user-b' });
    clock.advance(10 * 60_000 + 1);
    expect(await refusal(pairAWithB(late.code))).toBe('REMOTE_RELAY_AUTH');
    expect(await a.prisma.pairedRelay.count()).toBe(0);
  });

  it('refuses plain http:// to a public address before anything is sent', async () => {
    const { code } = await callUnary(b.client, 'createPairingCode', { userId: 'user-b' });
    const sent = offers.length;
    const refused = callUnary(a.client, 'pair', {
      userId: 'user-a',
      url: 'http://relay.example.com',
      code,
      selfName: 'relay-a',
      selfUrl: 'http://127.0.0.1:7420',
      selfVersion: '0.9.19',
    });
    expect(await refusal(refused)).toBe('REMOTE_RELAY_INVALID_INPUT');
    expect(offers).toHaveLength(sent);
  });
});

describe('a pairing never replaces another', () => {
  const pairA = (url: string, code: string) =>
    callUnary(a.client, 'pair', { userId: 'user-a', url, code, selfName: 'relay-a', selfUrl: 'http://127.0.0.1:7420', selfVersion: '0.9.19' });
  const offerB = (code: string, name: string, url: string) =>
    callUnary(b.client, 'acceptPairing', { code, name, url, version: '0.9.19', token: 'x'.repeat(43), selfName: 'relay-b', selfVersion: '0.9.19' });

  it('refuses a name already paired, case aside, and leaves that pairing as it was', async () => {
    await unpairBoth();
    await pairAWithB((await callUnary(b.client, 'createPairingCode', { userId: 'user-b' })).code);
    await callUnary(a.client, 'setAgentLevel', { name: 'relay-b', level: AgentLevel.AGENT_LEVEL_OFF });
    const before = await a.prisma.pairedRelay.findUniqueOrThrow({ where: { name: 'relay-b' } });

    // Another relay at another address answers the same name in capitals.
    await callUnary(b.client, 'unpair', { name: 'relay-a' });
    bName = 'RELAY-B';
    try {
      const { code } = await callUnary(b.client, 'createPairingCode', { userId: 'user-b' });
      expect(await refusal(pairA('http://127.0.0.1:7422', code))).toBe('REMOTE_RELAY_PAIRING_EXISTS');
    } finally {
      bName = 'relay-b';
    }
    expect(await a.prisma.pairedRelay.findMany()).toEqual([before]);
  });

  it('refuses a URL already paired before anything is sent', async () => {
    const sent = offers.length;
    const { code } = await callUnary(b.client, 'createPairingCode', { userId: 'user-b' });
    expect(await refusal(pairA('http://127.0.0.1:7421/', code))).toBe('REMOTE_RELAY_PAIRING_EXISTS');
    expect(offers).toHaveLength(sent);
  });

  // Issue 39: one relay on loopback answers at localhost, 127.0.0.1 and [::1] alike.
  it('refuses the same relay at another spelling of its loopback address, on either side, before anything is sent', async () => {
    const sent = offers.length;
    for (const url of ['http://localhost:7421', 'http://[::1]:7421/']) {
      const { code } = await callUnary(b.client, 'createPairingCode', { userId: 'user-b' });
      expect(await refusal(pairA(url, code)), url).toBe('REMOTE_RELAY_PAIRING_EXISTS');
    }
    expect(offers).toHaveLength(sent);
    const before = await b.prisma.pairedRelay.findMany();
    const { code } = await callUnary(b.client, 'createPairingCode', { userId: 'user-b' });
    expect(await refusal(offerB(code, 'other', 'http://localhost:7420'))).toBe('REMOTE_RELAY_PAIRING_EXISTS');
    expect(await b.prisma.pairedRelay.findMany()).toEqual(before);
  });

  it('refuses, on the relay asked, a relay whose name or URL is paired there already', async () => {
    await unpairBoth();
    await pairAWithB((await callUnary(b.client, 'createPairingCode', { userId: 'user-b' })).code);
    const before = await b.prisma.pairedRelay.findMany();
    const byName = (await callUnary(b.client, 'createPairingCode', { userId: 'user-b' })).code;
    expect(await refusal(offerB(byName, 'Relay-A', 'http://127.0.0.1:7999'))).toBe('REMOTE_RELAY_PAIRING_EXISTS');
    const byUrl = (await callUnary(b.client, 'createPairingCode', { userId: 'user-b' })).code;
    expect(await refusal(offerB(byUrl, 'other', 'http://127.0.0.1:7420'))).toBe('REMOTE_RELAY_PAIRING_EXISTS');
    expect(await b.prisma.pairedRelay.findMany()).toEqual(before);
  });

  it('lets one of two relays racing for one name in', async () => {
    const codes = await Promise.all([0, 1].map(async () => (await callUnary(b.client, 'createPairingCode', { userId: 'user-b' })).code));
    const outcomes = await Promise.allSettled([offerB(codes[0]!, 'twin', 'http://127.0.0.1:7501'), offerB(codes[1]!, 'TWIN', 'http://127.0.0.1:7502')]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [(outcome.reason as { code: string }).code] : []))).toEqual([
      'REMOTE_RELAY_PAIRING_EXISTS',
    ]);
    expect(await b.prisma.pairedRelay.count({ where: { nameKey: 'twin' } })).toBe(1);
    await callUnary(b.client, 'unpair', { name: 'twin' });
  });
});

describe('levels, the accept-prompts switch and unpairing', () => {
  it('sets the level, flips accept-prompts relay-wide, and unpairs with relay.pairing.v1.unpaired in the outbox', async () => {
    await unpairBoth();
    const { code } = await callUnary(b.client, 'createPairingCode', { userId: 'user-b' });
    await pairAWithB(code);
    const { relay } = await callUnary(a.client, 'setAgentLevel', { name: 'relay-b', level: AgentLevel.AGENT_LEVEL_READ });
    expect(relay?.level).toBe(AgentLevel.AGENT_LEVEL_READ);
    expect(await refusal(callUnary(a.client, 'setAgentLevel', { name: 'nowhere', level: AgentLevel.AGENT_LEVEL_READ }))).toBe('REMOTE_RELAY_UNKNOWN_RELAY');

    expect(await callUnary(b.client, 'setPairingSettings', { acceptPrompts: false })).toEqual({ settings: { acceptPrompts: false } });
    const token = (await a.prisma.pairedRelay.findUniqueOrThrow({ where: { name: 'relay-b' } })).outboundToken;
    expect((await callUnary(b.client, 'authenticateRelay', { token })).acceptPrompts).toBe(false);
    await callUnary(b.client, 'setPairingSettings', { acceptPrompts: true });

    const offered = offers.at(-1)!.token;
    await callUnary(a.client, 'unpair', { name: 'relay-b' });
    expect(await a.prisma.pairedRelay.count()).toBe(0);
    expect(await refusal(callUnary(a.client, 'authenticateRelay', { token: offered }))).toBe('REMOTE_RELAY_AUTH');
    const published = await a.prisma.outboxMessage.findMany({ where: { subject: 'relay.pairing.v1.unpaired' } });
    expect(published.at(-1)?.payload).toMatchObject({ relay: 'relay-b' });
    expect(await refusal(callUnary(a.client, 'unpair', { name: 'relay-b' }))).toBe('REMOTE_RELAY_UNKNOWN_RELAY');
  });
});

describe('probing the links', () => {
  it('keeps online and version as each paired relay last answered', async () => {
    await unpairBoth();
    const { code } = await callUnary(b.client, 'createPairingCode', { userId: 'user-b' });
    await pairAWithB(code);
    const store = new PrismaPairedRelayStore(a.prisma);
    helloAnswer = { name: 'relay-b', version: '0.9.20' };
    await probeLinks({ relays: store, link }, clock.now());
    expect((await callUnary(a.client, 'listPairedRelays', {})).relays[0]).toMatchObject({ name: 'relay-b', online: true, version: '0.9.20' });
    helloAnswer = offline('no answer');
    await probeLinks({ relays: store, link }, clock.now());
    expect((await callUnary(a.client, 'listPairedRelays', {})).relays[0]).toMatchObject({ name: 'relay-b', online: false, version: '0.9.20' });
  });
});
