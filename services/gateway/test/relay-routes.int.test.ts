// /relay/v1 on the real gateway app, in front of fake owners over gRPC: a paired relay's relay token, the
// provenance it sends, the accept-prompts switch, and POST /relay/v1/pair handing the code to the pairing service.
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

async function callTool(token: string | undefined, action: string, args: Record<string, unknown>, headers: Record<string, string> = {}) {
  const response = await fetch(`${gateway.url}/relay/v1/tool`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: JSON.stringify({ action, arguments: args }),
  });
  return { status: response.status, version: response.headers.get('x-relay-version'), body: (await response.json()) as Record<string, any> };
}

const provenance = {
  'x-relay-origin': 'someone-else',
  'x-relay-session-id': 's-lead',
  'x-relay-session-title': encodeURIComponent('Lead · ünïcode'),
  'x-relay-model': 'script-1',
  'x-relay-hops': '1',
};

describe('/relay/v1/hello', () => {
  it("answers this relay's name and version to a paired relay's token only", async () => {
    gateway.owners.relayTokens.set('t-build-box', { relayName: 'build-box', userId: 'u1', acceptPrompts: true });
    const hello = await fetch(`${gateway.url}/relay/v1/hello`, { headers: { authorization: 'Bearer t-build-box' } });
    expect(hello.status).toBe(200);
    expect(await hello.json()).toEqual({ name: 'desk', version: '0.9.19' });
    expect((await fetch(`${gateway.url}/relay/v1/hello`, { headers: { authorization: 'Bearer nope' } })).status).toBe(401);
  });
});

describe('/relay/v1/tool', () => {
  it('refuses a call without a known relay token with 401 REMOTE_RELAY_AUTH', async () => {
    expect(await callTool(undefined, 'list_sessions', { relay: 'this' })).toMatchObject({ status: 401, body: { code: 'REMOTE_RELAY_AUTH' } });
    expect(await callTool('not-a-token', 'list_sessions', { relay: 'this' })).toMatchObject({ status: 401, body: { code: 'REMOTE_RELAY_AUTH' } });
  });

  it("queues a prompt for the pairing's user with the caller's provenance; the origin is the relay as paired here", async () => {
    gateway.owners.relayTokens.set('t-build-box', { relayName: 'build-box', userId: 'u1', acceptPrompts: true });
    const target = gateway.owners.addAgentSession('u1', { title: 'Nightly deploy' }).session;
    const answer = await callTool('t-build-box', 'send', { relay: 'this', session: target.id, text: 'reply hi', wait_seconds: 5 }, provenance);
    expect(answer).toMatchObject({ status: 200, version: '0.9.19', body: { ok: true, relay: 'desk', session: target.id } });
    const sent = gateway.owners.calls.find((call) => call.method === 'sendMessage' && call.request.dryRun !== true);
    expect(sent?.request).toMatchObject({
      userId: 'u1',
      callerSessionId: '',
      provenance: {
        originRelay: 'build-box',
        originSessionId: 's-lead',
        originSessionTitle: 'Lead · ünïcode',
        model: 'script-1',
        hops: 1,
        viaRelays: ['build-box'],
      },
    });
  });

  it('passes on the chain of relays the prompt came through, ending with the caller as paired here whatever the header says', async () => {
    gateway.owners.relayTokens.set('t-build-box', { relayName: 'build-box', userId: 'u1', acceptPrompts: true });
    const target = gateway.owners.addAgentSession('u1', { title: 'Nightly deploy' }).session;
    const sendWith = async (via: string) => {
      const answer = await callTool(
        't-build-box',
        'send',
        { relay: 'this', session: target.id, text: 'reply hi' },
        { ...provenance, 'x-relay-hops': '2', 'x-relay-via': via },
      );
      expect(answer.body, JSON.stringify(answer.body)).toMatchObject({ ok: true });
      return gateway.owners.calls.filter((call) => call.method === 'sendMessage' && call.request.dryRun !== true).at(-1)?.request.provenance;
    };
    // The sending relay appended its own name; names are percent-encoded, so a comma inside one does not split it.
    expect(await sendWith(`lab,${encodeURIComponent('Build-Box')}`)).toMatchObject({ hops: 2, viaRelays: ['lab', 'build-box'] });
    expect(await sendWith(`${encodeURIComponent('north, 2')},lab`)).toMatchObject({ viaRelays: ['north, 2', 'lab', 'build-box'] });
    expect(await sendWith('')).toMatchObject({ viaRelays: ['build-box'] });
  });

  it('with accept-prompts off refuses what would prompt or change anything, and still answers reads', async () => {
    gateway.owners.relayTokens.set('t-build-box', { relayName: 'build-box', userId: 'u1', acceptPrompts: false });
    const target = gateway.owners.addAgentSession('u1', { title: 'Nightly deploy' }).session;
    for (const [action, args] of [
      ['send', { session: target.id, text: 'reply hi' }],
      ['create_session', { text: 'reply hi' }],
      ['stop', { session: target.id }],
      ['archive', { session: target.id }],
      ['update_session', { session: target.id, title: 'x' }],
      ['answer_question', { question_id: 'card_1', answer: 'yes' }],
    ] as const) {
      expect((await callTool('t-build-box', action, { relay: 'this', ...args }, provenance)).body, action).toMatchObject({
        ok: false,
        code: 'REMOTE_RELAY_PERMISSION',
      });
    }
    expect(gateway.owners.writes()).toEqual([]);
    expect((await callTool('t-build-box', 'list_sessions', { relay: 'this' }, provenance)).body).toMatchObject({ ok: true, relay: 'desk' });
    expect((await callTool('t-build-box', 'read_session', { relay: 'this', session: target.id }, provenance)).body).toMatchObject({ ok: true });
  });

  it('on a dry run checks the call and changes nothing', async () => {
    gateway.owners.relayTokens.set('t-build-box', { relayName: 'build-box', userId: 'u1', acceptPrompts: true });
    const target = gateway.owners.addAgentSession('u1', { title: 'Nightly deploy' }).session;
    for (const [action, args] of [
      ['send', { session: target.id, text: 'reply hi' }],
      ['create_session', { text: 'reply hi' }],
      ['archive', { session: target.id }],
    ] as const) {
      const answer = await callTool('t-build-box', action, { relay: 'this', ...args }, { ...provenance, 'x-relay-dry-run': '1' });
      expect(answer.body, action).toMatchObject({ ok: true, relay: 'desk', dryRun: true });
    }
    expect(gateway.owners.writes()).toEqual([]);
    expect(
      (await callTool('t-build-box', 'send', { relay: 'this', session: 'nope', text: 'x' }, { ...provenance, 'x-relay-dry-run': '1' })).body,
    ).toMatchObject({ ok: false, code: 'REMOTE_RELAY_NOT_FOUND' });
  });

  it('passes nothing on to a third relay and takes no schedules', async () => {
    gateway.owners.relayTokens.set('t-build-box', { relayName: 'build-box', userId: 'u1', acceptPrompts: true });
    gateway.owners.paired.push({
      name: 'lab',
      url: 'https://lab.example.com',
      online: true,
      version: '0.9.19',
      level: 4,
      ownerUserId: 'u1',
      pairedAt: undefined,
    });
    expect((await callTool('t-build-box', 'list_sessions', { relay: 'lab' }, provenance)).body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_UNSUPPORTED' });
    expect((await callTool('t-build-box', 'list_schedules', { relay: 'this' }, provenance)).body).toMatchObject({
      ok: false,
      code: 'REMOTE_RELAY_UNSUPPORTED',
    });
    expect(gateway.owners.forwarded).toEqual([]);
  });
});
