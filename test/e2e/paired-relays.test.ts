// Issue 8 end to end: relays paired on loopback (each its own processes, databases and nats-server). A `script`
// agent on relay-a works sessions on relay-b through relay_tool; every call goes through relay-a's MCP endpoint,
// its pairing service and relay-b's /relay/v1. The test plays the users of each relay over /api/v1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRelay, type Relay } from '../harness/relay.ts';
import { decideCard, finish, scriptSession } from '../harness/script-turns.ts';

let a: Relay;
let b: Relay;
let c: Relay;
let d: Relay;

/** Sends the user's message to a conversation on `relay` and returns the finished turn. */
async function say(relay: Relay, sessionId: string, text: string): Promise<any> {
  const sent = await relay.api('POST', `/api/v1/sessions/${sessionId}/messages`, { text });
  expect(sent.status, JSON.stringify(sent.body)).toBe(201);
  return finish(relay, sessionId, sent.body.message_id);
}

/** Pairs `from` with `to` the way users do: a code made on `to`, used on `from`. */
async function pair(from: Relay, to: Relay): Promise<any> {
  const code = await to.api('POST', '/api/v1/pairing-codes');
  expect(code.status, JSON.stringify(code.body)).toBe(201);
  const paired = await from.api('POST', '/api/v1/pairings', { url: to.gatewayUrl, code: code.body.code });
  expect(paired.status, JSON.stringify(paired.body)).toBe(201);
  return { ...paired.body.pairing, code: code.body.code };
}

const tool = (args: Record<string, unknown>) => `relay_tool ${JSON.stringify(args)}`;

beforeAll(async () => {
  // One after the other: eighteen processes starting at once starve each other on a small machine.
  a = await startRelay({ name: 'relay-a', readyTimeoutMs: 240_000 });
  b = await startRelay({ name: 'relay-b', readyTimeoutMs: 240_000 });
}, 600_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop(), c?.stop(), d?.stop()]);
});

describe('two relays paired on loopback', () => {
  let lead: string;
  let remote: string;

  it('pairs through the user API with a one-time code; each side lists the other at full', async () => {
    const paired = await pair(a, b);
    expect(paired).toMatchObject({ name: 'relay-b', url: b.gatewayUrl, level: 'full', online: true, version: '0.9.19' });
    expect((await a.api('GET', '/api/v1/pairings')).body.pairings).toEqual([expect.objectContaining({ name: 'relay-b', level: 'full' })]);
    expect((await b.api('GET', '/api/v1/pairings')).body.pairings).toEqual([expect.objectContaining({ name: 'relay-a', url: a.gatewayUrl, level: 'full' })]);

    // A pairing never replaces another: the same relay again is refused until it is unpaired; a public address
    // over plain http is refused before anything is sent.
    const again = await a.api('POST', '/api/v1/pairings', { url: b.gatewayUrl, code: paired.code });
    expect(again).toMatchObject({ status: 409, body: { code: 'REMOTE_RELAY_PAIRING_EXISTS' } });
    const plain = await a.api('POST', '/api/v1/pairings', { url: 'http://relay.example.com', code: paired.code });
    expect(plain).toMatchObject({ status: 400, body: { code: 'REMOTE_RELAY_INVALID_INPUT' } });
  });

  it('refuses a locked relay, then works on it once the user mentions it', async () => {
    // The host without a leading @ is no mention: 127.0.0.1 is an IP address.
    const started = await scriptSession(a, 'Lead', [tool({ action: 'list_sessions', relay: '127.0.0.1' }), 'reply {{result.code}}'].join('\n'));
    lead = started.id;
    expect((await finish(a, lead, started.messageId)).reply.text).toBe('REMOTE_RELAY_LOCKED');

    const pending = a.api('POST', `/api/v1/sessions/${lead}/messages`, {
      text: [
        '# relay-b may take this',
        tool({ action: 'create_session', relay: 'relay-b', title: 'Remote worker', text: 'reply pong', wait_seconds: 120 }),
        'reply {{result.relay}} {{result.session}} {{result.status}} {{result.reply.text}}',
      ].join('\n'),
    });
    const sent = await pending;
    expect(sent.status).toBe(201);
    // The first session this conversation starts: the user allows it here, on relay-a.
    const card = await decideCard(a, lead, 'allow');
    expect(card.title).toContain('relay-b');
    const turn = await finish(a, lead, sent.body.message_id);
    const [relay, id, status, reply] = turn.reply.text.split(' ');
    expect([relay, status, reply]).toEqual(['relay-b', 'done', 'pong']);
    remote = id;

    // On relay-b: the prompt says who sent it, the session is in no group, and relay-a is unlocked there.
    const read = await b.api('GET', `/api/v1/sessions/${remote}`);
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(read.body.messages[0].text).toBe('[Remote prompt from an agent on relay "relay-a" · session "Lead" · script-1 · acting for the user]\nreply pong');
    expect(read.body.session.group).toBeUndefined();

    const listed = await say(a, lead, [tool({ action: 'list_relays' }), 'reply {{result.summary}}'].join('\n'));
    expect(listed.reply.text).toBe('list_relays: 2 relays, 2 unlocked');
  });

  it('prompts the session on relay-b and waits for its reply', async () => {
    const turn = await say(
      a,
      lead,
      [
        tool({ action: 'send', relay: 'relay-b', session: remote, text: 'reply again', wait_seconds: 120 }),
        'reply {{result.relay}} {{result.reply.text}}',
      ].join('\n'),
    );
    expect(turn.reply.text).toBe('relay-b again');
  });

  it('changes the remote session freely from the conversation that started it; another conversation asks the user once', async () => {
    const own = await say(
      a,
      lead,
      [tool({ action: 'update_session', relay: 'relay-b', session: remote, title: 'Renamed by lead' }), 'reply {{result.changed}}'].join('\n'),
    );
    expect(own.reply.text).toBe('["title"]');

    const other = await a.api('POST', '/api/v1/sessions', {
      provider: 'script',
      title: 'Other',
      text: [
        '# relay-b',
        tool({ action: 'update_session', relay: 'relay-b', session: remote, title: 'Renamed by other' }),
        'reply {{result.changed}}',
        tool({ action: 'update_session', relay: 'relay-b', session: remote, title: 'Renamed again by other' }),
        'reply {{result.changed}}',
      ].join('\n'),
    });
    expect(other.status, JSON.stringify(other.body)).toBe(201);
    // relay-b did not record "Other" as the starter: the user allows the change on a card here, on relay-a, which
    // names the session and lists the change; the Allow is remembered, so the second change asks nothing here.
    const card = await decideCard(a, other.body.session.id, 'allow');
    expect(card.title).toContain('relay-b');
    expect(card.lines).toEqual(['Title: "Renamed by other"', "Allow also covers this conversation's later changes to sessions it did not start on relay-b."]);
    // relay-b never takes relay-a's word for its own person's Allow: each change asks on relay-b's own card, in the
    // session it changes, naming the relay it comes from.
    for (const title of ['Renamed by other', 'Renamed again by other']) {
      const own = await decideCard(b, remote, 'allow');
      expect(own).toMatchObject({ kind: 'approval' });
      expect(own.lines).toEqual([`Title: "${title}"`, 'Asked by an agent on relay "relay-a" (session "Other"), through your pairing with it.']);
    }
    expect((await finish(a, other.body.session.id, other.body.message_id)).reply.text).toBe('["title"]\n["title"]');
    expect((await a.api('GET', `/api/v1/cards?session=${other.body.session.id}`)).body.cards).toHaveLength(1);
    expect((await b.api('GET', `/api/v1/sessions/${remote}`)).body.session.title).toBe('Renamed again by other');
  });

  it("refuses the send when relay-b's level on relay-a is lowered to read; reads still work", async () => {
    expect((await a.api('PATCH', '/api/v1/pairings/relay-b', { level: 'read' })).status).toBe(200);
    try {
      const turn = await say(
        a,
        lead,
        [
          tool({ action: 'send', relay: 'relay-b', session: remote, text: 'reply no' }),
          'reply {{result.code}}',
          tool({ action: 'read_session', relay: 'relay-b', session: remote }),
          'reply {{result.ok}}',
        ].join('\n'),
      );
      expect(turn.reply.text).toBe('REMOTE_RELAY_PERMISSION\ntrue');
    } finally {
      await a.api('PATCH', '/api/v1/pairings/relay-b', { level: 'full' });
    }
  });

  it("refuses the send when relay-b does not accept prompts from other relays' agents; reads still work", async () => {
    expect((await b.api('PUT', '/api/v1/pairing-settings', { accept_prompts: false })).body).toEqual({ accept_prompts: false });
    try {
      const turn = await say(
        a,
        lead,
        [
          tool({ action: 'send', relay: 'relay-b', session: remote, text: 'reply no' }),
          'reply {{result.code}}',
          tool({ action: 'read_session', relay: 'relay-b', session: remote }),
          'reply {{result.ok}}',
        ].join('\n'),
      );
      expect(turn.reply.text).toBe('REMOTE_RELAY_PERMISSION\ntrue');
    } finally {
      await b.api('PUT', '/api/v1/pairing-settings', { accept_prompts: true });
    }
    const read = await b.api('GET', `/api/v1/sessions/${remote}?last=100`);
    expect(read.body.messages.filter((message: { text: string }) => message.text.includes('reply no'))).toEqual([]);
  });

  it(
    'lets a prompt that crossed two relays go back to any relay of its chain (relay-a → relay-b → relay-c → relay-a), not on to a fourth',
    { timeout: 900_000 },
    async () => {
      c = await startRelay({ name: 'relay-c', readyTimeoutMs: 240_000 });
      d = await startRelay({ name: 'relay-d', readyTimeoutMs: 240_000 });
      await pair(a, c);
      await pair(b, c);
      await pair(d, c);
      // relay-a's agent starts a session on relay-c, which unlocks relay-a there (an agent of relay-a wrote to it).
      const hub = await scriptSession(
        a,
        'Hub',
        [
          '# relay-c',
          tool({ action: 'create_session', relay: 'relay-c', title: 'Far', text: 'reply far', wait_seconds: 120 }),
          'reply {{result.session}}',
        ].join('\n'),
      );
      await decideCard(a, hub.id, 'allow');
      const far = (await finish(a, hub.id, hub.messageId)).reply.text;
      // On relay-b, a user's conversation that mentions relay-c.
      const middle = await scriptSession(b, 'Middle', '# relay-c is fine here\nreply ready');
      await finish(b, middle.id, middle.messageId);
      // relay-d's agent prompts Far, which unlocks relay-d there, but not by mention: the user of Far never named it.
      const outside = await scriptSession(
        d,
        'Outside',
        ['# relay-c', tool({ action: 'send', relay: 'relay-c', session: far, text: 'reply hi', wait_seconds: 120 }), 'reply {{result.status}}'].join('\n'),
      );
      expect((await finish(d, outside.id, outside.messageId)).reply.text).toBe('done');

      // relay-a (hops 0) → relay-b (hops 1) → relay-c (hops 2, came through relay-a and relay-b): the turn there may
      // prompt relay-a, where the chain started, not only relay-b it came from directly; relay-d, a fourth relay the
      // user did not mention there, it may not. No wait on relay-a: hub's own turn is the one waiting on this chain.
      const onFar = [
        tool({ action: 'send', relay: 'relay-d', session: outside.id, text: 'reply no' }),
        'reply {{result.code}}',
        tool({ action: 'send', relay: 'relay-a', session: hub.id, text: 'reply back', wait_seconds: 0 }),
        'reply {{result.ok}} {{result.relay}}',
      ].join('\n');
      // Far's placeholders must reach Far as written: Hub's and Middle's scripts fill in every {{…}} of their own steps,
      // so in Middle's step they are JSON escapes (\u007b is "{"), which only Middle's JSON.parse turns back into braces.
      const onMiddle = tool({ action: 'send', relay: 'relay-c', session: far, text: onFar, wait_seconds: 120 }).replaceAll('{{', '\\u007b\\u007b');
      const turn = await say(
        a,
        hub.id,
        ['# relay-b', tool({ action: 'send', relay: 'relay-b', session: middle.id, text: onMiddle, wait_seconds: 120 }), 'reply {{result}}'].join('\n'),
      );
      // Hub's whole result first, so a send that ended otherwise (a status, a code) shows how.
      const hubResult = JSON.parse(turn.reply.text);
      expect(hubResult).toMatchObject({ ok: true, relay: 'relay-b', status: 'done' });
      const middleResult = JSON.parse(hubResult.reply.text);
      expect(middleResult).toMatchObject({ ok: true, relay: 'relay-c', status: 'done' });
      expect(middleResult.reply.text).toBe('REMOTE_RELAY_HOP_LIMIT\ntrue relay-a');
      const read = await a.api('GET', `/api/v1/sessions/${hub.id}?last=100`);
      const back = read.body.messages.find((message: { text: string }) => message.text.endsWith('\nreply back'));
      expect(back?.text).toBe('[Remote prompt from an agent on relay "relay-c" · session "Far" · script-1 · acting for the user]\nreply back');
      const outsideRead = await d.api('GET', `/api/v1/sessions/${outside.id}?last=100`);
      expect(outsideRead.body.messages.filter((message: { text: string }) => message.text.endsWith('reply no'))).toEqual([]);
    },
  );
});
