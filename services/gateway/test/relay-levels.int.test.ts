// The receiving relay's own check of a paired relay's calls (docs/security.md, Paired relays): every action at
// every "Agents may" level this relay grants the pairing, before anything of the user's is read or written, and
// claims in headers that stand for nobody's Allow. The real gateway app in front of fake owners over gRPC.
import { AgentLevel } from '@relay/proto/relay/pairing/v1/pairing_service';
import { CardKind } from '@relay/proto/relay/question/v1/question_service';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from './start-gateway.ts';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway('desk');
});

afterAll(async () => {
  await gateway.close();
});

afterEach(() => {
  gateway.owners.reset();
});

const LEVELS = [
  ['off', AgentLevel.AGENT_LEVEL_OFF],
  ['read', AgentLevel.AGENT_LEVEL_READ],
  ['read_and_prompt', AgentLevel.AGENT_LEVEL_READ_AND_PROMPT],
  ['full', AgentLevel.AGENT_LEVEL_FULL],
] as const;
type LevelName = (typeof LEVELS)[number][0];
const ORDER: LevelName[] = LEVELS.map(([name]) => name);

const provenance = { 'x-relay-session-id': 's-lead', 'x-relay-session-title': 'Lead', 'x-relay-model': 'script-1', 'x-relay-hops': '1' };

async function post(path: string, token: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...provenance, ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

/** A pairing this relay grants `level`, acting for u1; its token. */
function pairedAt(level: AgentLevel, acceptPrompts = true): string {
  const token = `t-lab-${level}-${acceptPrompts}`;
  gateway.owners.relayTokens.set(token, { relayName: 'lab', userId: 'u1', acceptPrompts, level });
  return token;
}

/** What the call asked of the owners beyond the relay's own settings: anything of the user's read or written. */
function touched(): string[] {
  return gateway.owners.calls.map((call) => call.method).filter((method) => !['getRelaySettings', 'listPairedRelays', 'getPairingSettings'].includes(method));
}

/** Every action a paired relay may call here, the lowest level it needs (decisions.md), and its arguments. */
function actions(session: string): [string, LevelName, Record<string, unknown>][] {
  return [
    ['relay_info', 'read', {}],
    ['usage', 'read', {}],
    ['list_sessions', 'read', {}],
    ['read_session', 'read', { session }],
    ['read_task_output', 'read', { session, task_id: 'task_0123456789abcdef' }],
    ['wait', 'read', { session, wait_seconds: 0 }],
    ['send', 'read_and_prompt', { session, text: 'reply hi', wait_seconds: 0 }],
    ['create_session', 'full', { text: 'reply hi', wait_seconds: 0 }],
    ['update_session', 'full', { session, title: 'Renamed' }],
    ['answer_question', 'full', { question_id: 'card_000000000001', answer: 'yes' }],
    ['stop', 'full', { session }],
    ['archive', 'full', { session }],
  ];
}

describe('/relay/v1/tool at each "Agents may" level this relay grants the pairing', () => {
  const cases = LEVELS.flatMap(([levelName, level]) => actions('').map(([action, needs]) => [action, needs, levelName, level] as const));

  it.each(cases)('%s (needs %s) at %s', async (action, needs, levelName, level) => {
    const { session } = gateway.owners.addAgentSession('u1', { title: 'Nightly deploy' });
    const args = actions(session.id).find(([name]) => name === action)![2];
    gateway.owners.calls.splice(0);
    const answer = await post('/relay/v1/tool', pairedAt(level), { action, arguments: { relay: 'this', ...args } });
    expect(answer.status).toBe(200);
    if (ORDER.indexOf(levelName) < ORDER.indexOf(needs)) {
      expect(answer.body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_PERMISSION', needed: needs, level: levelName });
      // Refused before anything of the user's was read or written.
      expect(touched()).toEqual([]);
    } else {
      expect(answer.body.code, JSON.stringify(answer.body)).not.toBe('REMOTE_RELAY_PERMISSION');
    }
  });

  it('a pairing set to off lists nothing and creates nothing', async () => {
    gateway.owners.addAgentSession('u1', { title: 'Nightly deploy' });
    const token = pairedAt(AgentLevel.AGENT_LEVEL_OFF);
    expect((await post('/relay/v1/tool', token, { action: 'list_sessions', arguments: { relay: 'this' } })).body).toMatchObject({
      ok: false,
      code: 'REMOTE_RELAY_PERMISSION',
    });
    expect((await post('/relay/v1/tool', token, { action: 'create_session', arguments: { relay: 'this', text: 'reply hi' } })).body).toMatchObject({
      ok: false,
      code: 'REMOTE_RELAY_PERMISSION',
    });
    expect(gateway.owners.writes()).toEqual([]);
  });

  it('a level this gateway does not know grants nothing', async () => {
    const answer = await post('/relay/v1/tool', pairedAt(AgentLevel.AGENT_LEVEL_UNSPECIFIED), { action: 'list_sessions', arguments: { relay: 'this' } });
    expect(answer.body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_PERMISSION', level: 'off' });
  });
});

describe('/relay/v1/asks at each level', () => {
  it.each(LEVELS)('at %s: an ask needs read_and_prompt, reading them read', async (levelName, level) => {
    const token = pairedAt(level);
    const ask = await post('/relay/v1/asks', token, { askingSessionId: 's-lead', session: 'sess_0123456789ab', question: 'Ship it?' });
    const read = await fetch(`${gateway.url}/relay/v1/asks?asking_session_id=s-lead`, { headers: { authorization: `Bearer ${token}` } });
    const mayAsk = ORDER.indexOf(levelName) >= ORDER.indexOf('read_and_prompt');
    const mayRead = levelName !== 'off';
    if (mayAsk) expect(ask.body.code).not.toBe('REMOTE_RELAY_PERMISSION');
    else expect(ask).toMatchObject({ status: 403, body: { code: 'REMOTE_RELAY_PERMISSION' } });
    expect(read.status === 403).toBe(!mayRead);
  });
});

describe('claims a paired relay sends count for nothing', () => {
  it('x-relay-allowed: 1 does not change a session that relay did not start: this relay asks its own person, and Deny changes nothing', async () => {
    const { session } = gateway.owners.addAgentSession('u1', { title: 'Nightly deploy', startedBySessionId: 'sess_someoneelse' });
    gateway.owners.cardDecision = 'deny';
    const answer = await post(
      '/relay/v1/tool',
      pairedAt(AgentLevel.AGENT_LEVEL_FULL),
      { action: 'update_session', arguments: { relay: 'this', session: session.id, mode: 'agent', title: 'Taken' } },
      { 'x-relay-allowed': '1' },
    );
    expect(answer.body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_PERMISSION' });
    expect(gateway.owners.writes()).toEqual([]);
    expect(session.title).toBe('Nightly deploy');
    // The card is this relay's own, in the session the call is about, for the pairing's user.
    expect(gateway.owners.cards).toEqual([expect.objectContaining({ userId: 'u1', sessionId: session.id, kind: CardKind.CARD_KIND_APPROVAL })]);
  });

  it('a card still pending answers which card, and the change waits for the person', async () => {
    const { session } = gateway.owners.addAgentSession('u1', { title: 'Nightly deploy', startedBySessionId: 'sess_someoneelse' });
    gateway.owners.cardDecision = 'pending';
    const answer = await post('/relay/v1/tool', pairedAt(AgentLevel.AGENT_LEVEL_FULL), {
      action: 'update_session',
      arguments: { relay: 'this', session: session.id, title: 'Taken' },
    });
    expect(answer.body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_PERMISSION', card: 'card_1', cardStatus: 'pending' });
    expect(gateway.owners.writes()).toEqual([]);
  });

  it('the person’s Allow here changes it', async () => {
    const { session } = gateway.owners.addAgentSession('u1', { title: 'Nightly deploy', startedBySessionId: 'sess_someoneelse' });
    gateway.owners.cardDecision = 'allow';
    const answer = await post('/relay/v1/tool', pairedAt(AgentLevel.AGENT_LEVEL_FULL), {
      action: 'update_session',
      arguments: { relay: 'this', session: session.id, title: 'Renamed' },
    });
    expect(answer.body).toMatchObject({ ok: true, changed: ['title'] });
    expect(session.title).toBe('Renamed');
  });

  it('hops that say a prompt crossed two relays before this one are refused unless it came through here before', async () => {
    const { session } = gateway.owners.addAgentSession('u1', { title: 'Nightly deploy' });
    const token = pairedAt(AgentLevel.AGENT_LEVEL_FULL);
    const send = (via: string) =>
      post(
        '/relay/v1/tool',
        token,
        { action: 'send', arguments: { relay: 'this', session: session.id, text: 'reply hi' } },
        { 'x-relay-hops': '3', 'x-relay-via': via },
      );
    expect((await send('north,south')).body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_HOP_LIMIT' });
    expect(gateway.owners.writes()).toEqual([]);
    expect((await send('desk,south')).body).toMatchObject({ ok: true });
  });
});
