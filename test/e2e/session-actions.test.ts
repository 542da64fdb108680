// Issue 3 end to end: a `script` session drives another session through relay_tool — every call through the
// gateway's MCP endpoint with its own token — while the test plays the user (approval cards, messages) over /api/v1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RelayClient } from '../harness/relay.ts';
import { sharedRelay } from '../harness/shared-relay.ts';
import { decideCard, finish, scriptSession } from '../harness/script-turns.ts';

let relay: RelayClient;

/** Sends the user's message to a conversation and returns the finished turn (status, reply …). */
async function say(sessionId: string, text: string): Promise<any> {
  const sent = await relay.api('POST', `/api/v1/sessions/${sessionId}/messages`, { text });
  expect(sent.status, JSON.stringify(sent.body)).toBe(201);
  return finish(relay, sessionId, sent.body.message_id);
}

const tool = (args: Record<string, unknown>) => `relay_tool ${JSON.stringify(args)}`;

beforeAll(async () => {
  relay = await sharedRelay();
});

afterAll(async () => {
  await relay?.stop();
});

describe('a script session works another session through relay_tool', () => {
  let lead: string;
  let worker: string;

  it('creates a session after the user allows the first-session card, and gets its reply', async () => {
    const started = await scriptSession(
      relay,
      'Lead',
      [
        tool({ action: 'create_session', relay: 'this', title: 'Worker', text: 'reply pong', wait_seconds: 120 }),
        'reply {{result.session}} {{result.status}} {{result.reply.text}}',
      ].join('\n'),
    );
    lead = started.id;
    const card = await decideCard(relay, lead, 'allow');
    expect(card.kind).toBe('approval');
    expect(`${card.title} ${card.lines.join(' ')}`).toContain('Worker');
    const turn = await finish(relay, lead, started.messageId);
    expect(turn.status).toBe('done');
    const [id, status, reply] = turn.reply.text.split(' ');
    expect([status, reply]).toEqual(['done', 'pong']);
    worker = id;
    const listed = await relay.api('GET', '/api/v1/sessions');
    expect(listed.body.sessions.find((s: { id: string }) => s.id === worker)).toMatchObject({ title: 'Worker', provider: 'script' });
  });

  it('sends a prompt without waiting, then waits for its reply', async () => {
    const turn = await say(
      lead,
      [
        tool({ action: 'send', relay: 'this', session: worker, text: 'reply second answer', wait_seconds: 0 }),
        tool({ action: 'wait', relay: 'this', session: worker, message_id: '{{result.message_id}}', wait_seconds: 120 }),
        'reply {{result.status}}: {{result.reply.text}}',
      ].join('\n'),
    );
    expect(turn.reply.text).toBe('done: second answer');
  });

  it('reads the session back', async () => {
    const turn = await say(lead, tool({ action: 'read_session', relay: 'this', session: worker, last: 4 }));
    const read = JSON.parse(turn.reply.text);
    expect(read.ok).toBe(true);
    expect(read.messages.map((m: { text: string }) => m.text)).toEqual(['reply pong', 'pong', 'reply second answer', 'second answer']);
  });

  it('updates its title and puts it into a new group, with no card for a session it started', async () => {
    const turn = await say(lead, tool({ action: 'update_session', relay: 'this', session: worker, title: 'Worker 2', group: 'Release 2.4' }));
    const update = JSON.parse(turn.reply.text);
    expect(update).toMatchObject({ ok: true, changed: expect.arrayContaining(['title', 'group']) });
    expect(update.settings).toMatchObject({ title: 'Worker 2', group: { name: 'Release 2.4' } });
    expect(update.groupCreated).toMatchObject({ name: 'Release 2.4' });
    const info = await say(lead, tool({ action: 'relay_info', relay: 'this' }));
    expect(JSON.parse(info.reply.text).groups).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'Release 2.4', memberCount: 1 })]));
  });

  it('stops a long turn', async () => {
    const sent = await say(
      lead,
      [tool({ action: 'send', relay: 'this', session: worker, text: 'wait 600\nreply too late', wait_seconds: 0 }), 'reply {{result.message_id}}'].join('\n'),
    );
    const messageId = sent.reply.text;
    const turn = await say(
      lead,
      [
        tool({ action: 'stop', relay: 'this', session: worker }),
        'reply {{result.stopRequested}}',
        tool({ action: 'wait', relay: 'this', session: worker, message_id: messageId, wait_seconds: 120 }),
        'reply {{result.status}}',
      ].join('\n'),
    );
    expect(turn.reply.text).toBe('true\nstopped');
  });

  it('archives it; a later send is refused and nothing is queued', async () => {
    const before = await relay.api('GET', `/api/v1/sessions/${worker}?last=100`);
    const turn = await say(
      lead,
      [tool({ action: 'archive', relay: 'this', session: worker }), tool({ action: 'send', relay: 'this', session: worker, text: 'reply no' })].join('\n'),
    );
    expect(JSON.parse(turn.reply.text)).toMatchObject({ ok: false, code: 'REMOTE_RELAY_ARCHIVED' });
    const after = await relay.api('GET', `/api/v1/sessions/${worker}?last=100`);
    expect(after.body.messages).toHaveLength(before.body.messages.length);
    expect(after.body.session.archived).toBe(true);
  });

  it('refuses acting on its own conversation', async () => {
    const turn = await say(lead, tool({ action: 'send', relay: 'this', session: lead, text: 'reply me' }));
    expect(JSON.parse(turn.reply.text)).toMatchObject({ ok: false, code: 'REMOTE_RELAY_FORBIDDEN' });
  });
});

describe('cards and refusals', () => {
  it('in ask mode a send waits for the user; Deny refuses it and sends nothing', async () => {
    const target = await scriptSession(relay, 'Target', 'reply ready');
    await finish(relay, target.id, target.messageId);
    const asker = await scriptSession(relay, 'Asker', 'reply hello');
    await finish(relay, asker.id, asker.messageId);
    expect((await relay.api('PATCH', `/api/v1/sessions/${asker.id}`, { mode: 'ask' })).status).toBe(200);
    const before = await relay.api('GET', `/api/v1/sessions/${target.id}?last=100`);

    const sent = await relay.api('POST', `/api/v1/sessions/${asker.id}/messages`, {
      text: tool({ action: 'send', relay: 'this', session: target.id, text: 'reply denied?' }),
    });
    await decideCard(relay, asker.id, 'deny');
    const turn = await finish(relay, asker.id, sent.body.message_id);
    expect(JSON.parse(turn.reply.text)).toMatchObject({ ok: false, code: 'REMOTE_RELAY_PERMISSION' });
    const after = await relay.api('GET', `/api/v1/sessions/${target.id}?last=100`);
    expect(after.body.messages).toHaveLength(before.body.messages.length);
  });

  it('an unknown model is refused with suggestions before anything is created', async () => {
    const lead = await scriptSession(
      relay,
      'Models',
      tool({ action: 'create_session', relay: 'this', provider: 'copilot', model: 'gpt-5-4', text: 'reply x' }),
    );
    const turn = await finish(relay, lead.id, lead.messageId);
    const refusal = JSON.parse(turn.reply.text);
    expect(refusal).toMatchObject({ ok: false, code: 'REMOTE_RELAY_UNKNOWN_MODEL', suggestions: ['gpt-5.4'] });
    expect(refusal.models).toContain('gpt-5.4');
    const { body } = await relay.api('GET', '/api/v1/sessions?scope=all');
    expect(body.sessions.filter((s: { provider: string }) => s.provider === 'copilot')).toEqual([]);
  });

  it("an external client's call is its running turn: its first create_session waits on a card, and Deny creates nothing", async () => {
    const external = await relay.createExternalSession('My own client');
    const agent = await relay.connectAgent(external.token);
    try {
      const before = await relay.api('GET', '/api/v1/sessions?scope=all');
      const calling = agent.callTool({ name: 'relay_tool', arguments: { action: 'create_session', relay: 'this', text: 'reply hi' } });
      let card: { id: string } | undefined;
      while (card === undefined) {
        card = (await relay.api('GET', `/api/v1/cards?session=${external.id}&pending=1`)).body.cards[0];
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect((await relay.api('POST', `/api/v1/cards/${card.id}`, { decision: 'deny' })).status).toBe(200);
      const body = JSON.parse(((await calling).content as { text: string }[])[0]!.text);
      expect(body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_PERMISSION' });
      const after = await relay.api('GET', '/api/v1/sessions?scope=all');
      expect(after.body.sessions).toHaveLength(before.body.sessions.length);
    } finally {
      await agent.close();
    }
  });
});

describe('long waits over MCP', () => {
  let agent: Client;

  it('a client whose tool timeout is shorter than the turn still gets the reply, kept alive by progress', async () => {
    const worker = await scriptSession(relay, 'Slow worker', 'reply ready');
    await finish(relay, worker.id, worker.messageId);
    const external = await relay.createExternalSession('Impatient client');
    agent = await relay.connectAgent(external.token);
    const progress: number[] = [];
    const result = await agent.callTool(
      { name: 'relay_tool', arguments: { action: 'send', relay: 'this', session: worker.id, text: 'wait 9\nreply worth the wait', wait_seconds: 120 } },
      undefined,
      { timeout: 7_000, resetTimeoutOnProgress: true, onprogress: (p) => progress.push(p.progress) },
    );
    const body = JSON.parse((result.content as { text: string }[])[0]!.text);
    expect(body).toMatchObject({ ok: true, status: 'done', reply: { text: 'worth the wait' } });
    expect(progress.length).toBeGreaterThan(0);
    await agent.close();
  });
});
