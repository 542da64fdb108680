import { AppError } from '@relay/errors';
import { Ask, AskStatus } from '@relay/proto/relay/question/v1/question_service';
import { MessageDelivery, SessionState } from '@relay/proto/relay/session/v1/session';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectAgent, type TestAgent } from './mcp-agent.ts';
import { startGateway, type TestGateway } from './start-gateway.ts';

let gateway: TestGateway;
let agent: TestAgent;

beforeAll(async () => {
  gateway = await startGateway('desk');
  agent = await connectAgent(gateway);
});

afterAll(async () => {
  await agent.close();
  await gateway.close();
});

afterEach(() => gateway.owners.reset());

/** A pending ask about `sessionId`, as the question service lists it. */
function pendingAsk(id: string, sessionId: string, question: string): Ask {
  return Ask.fromPartial({
    id,
    userId: 'u1',
    askingSessionId: sessionId,
    aboutSessionId: sessionId,
    question,
    options: ['Yes', 'No'],
    status: AskStatus.ASK_STATUS_PENDING,
  });
}

describe('relay_info', () => {
  it('answers the spec shape: name, version, platform, providers, folders, modes, groups', async () => {
    const { isError, body } = await agent.call({ action: 'relay_info', relay: 'this' });
    expect(isError).toBe(false);
    expect(body).toEqual({
      ok: true,
      relay: 'desk',
      summary: 'relay_info → desk: 2 providers (1 available), 1 group',
      name: 'desk',
      version: '0.9.19',
      platform: expect.stringMatching(/^\w+-\w+$/),
      acceptsAgentPrompts: true,
      providers: [
        { id: 'script', name: 'Script', available: true, defaultModel: 'script-1', models: ['script-1'], efforts: [] },
        {
          id: 'claude',
          name: 'Claude',
          available: false,
          reason: 'no credentials',
          defaultModel: 'claude-sonnet-5-5',
          models: [],
          efforts: ['low', 'medium', 'high'],
          modelsNote: expect.stringContaining('unchecked'),
        },
      ],
      folders: { default: '/home/dev', recent: ['/home/dev/shop', '/home/dev/site'] },
      modes: ['agent', 'ask', 'plan'],
      groups: [{ id: 'grp_release', name: 'Release 2.4', memberCount: 3 }],
    });
    expect(gateway.owners.calls.at(-1)).toMatchObject({ method: 'getRelayInfo', request: { userId: 'u1', withoutUsage: true } });
  });

  it("says whether this relay accepts prompts from other relays' agents, as its pairing settings have it", async () => {
    gateway.owners.acceptPrompts = false;
    expect((await agent.call({ action: 'relay_info', relay: 'this' })).body).toMatchObject({ ok: true, acceptsAgentPrompts: false });
  });

  it('lists at most 50 groups, with groupsTotal when there are more', async () => {
    gateway.owners.groups = Array.from({ length: 50 }, (_, i) => ({ id: `grp_${i}`, name: `Group ${i}`, memberCount: 1 }));
    gateway.owners.groupsTotal = 73;
    const { body } = await agent.call({ action: 'relay_info', relay: 'desk' });
    expect(body.groups).toHaveLength(50);
    expect(body.groupsTotal).toBe(73);
    expect(body.summary).toBe('relay_info → desk: 2 providers (1 available), 73 groups');
  });

  it('lists what it ignored', async () => {
    const { body } = await agent.call({ action: 'relay_info', relay: 'this', session: 'x', text: 'hi' });
    expect(body).toMatchObject({ ok: true, ignored: ['session', 'text'] });
  });

  it('answers REMOTE_RELAY_UNKNOWN_RELAY for a name it does not know, and REMOTE_RELAY_DISABLED while agent sessions are off', async () => {
    expect((await agent.call({ action: 'relay_info', relay: 'laptop' })).body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_UNKNOWN_RELAY' });
    gateway.owners.settings.agentSessionsEnabled = false;
    expect((await agent.call({ action: 'relay_info', relay: 'this' })).body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_DISABLED' });
  });
});

describe('list_sessions', () => {
  it('shows group, mayCreateSessions and "via agent" startedBy', async () => {
    const started = gateway.owners.addAgentSession('u1', {
      title: 'Review: server/',
      group: { id: 'grp_1', name: 'Planner', role: 'member' },
      startedBySessionId: agent.session.id,
      startedByTitle: 'Planner',
      mayCreateSessions: true,
    }).session;
    const { body } = await agent.call({ action: 'list_sessions', relay: 'this' });
    const view = (body.sessions as Record<string, unknown>[]).find((session) => session.id === started.id);
    expect(view).toEqual({
      id: started.id,
      title: 'Review: server/',
      provider: 'script',
      model: 'script-1',
      state: 'idle',
      cwd: '/tmp',
      lastActivityAt: '2026-01-01T00:00:00.000Z',
      messageCount: 0,
      tasks: [],
      group: { id: 'grp_1', name: 'Planner', role: 'member' },
      mayCreateSessions: true,
      startedBy: { id: agent.session.id, title: 'Planner' },
    });
  });
});

describe('read_session', () => {
  it('reads messages, state, inFlight and the group with its other members', async () => {
    const group = { id: 'grp_2', name: 'Release 2.4', role: 'member' };
    const target = gateway.owners.addAgentSession('u1', { title: 'Nightly deploy', state: SessionState.SESSION_STATE_RUNNING_TURN, group }).session;
    const other = gateway.owners.addAgentSession('u1', { title: 'Head', group: { ...group, role: 'head' }, archived: true }).session;
    gateway.owners.messages.set(target.id, [
      {
        id: 'm1',
        role: 'user',
        text: 'Deploy it.',
        provenance: undefined,
        createdAt: new Date('2026-10-18T09:00:00Z'),
        model: '',
        delivery: MessageDelivery.MESSAGE_DELIVERY_DELIVERED,
      },
      {
        id: 'm2',
        role: 'assistant',
        text: 'Deploying.',
        provenance: undefined,
        createdAt: new Date('2026-10-18T09:01:00Z'),
        model: 'script-1',
        delivery: MessageDelivery.MESSAGE_DELIVERY_UNSPECIFIED,
      },
    ]);

    const { isError, body } = await agent.call({ action: 'read_session', relay: 'this', session: target.id, last: 5 });
    expect(isError).toBe(false);
    expect(body).toMatchObject({
      ok: true,
      relay: 'desk',
      summary: `read_session → desk session ${target.id.slice(0, 8)} "Nightly deploy": 2 messages, running_turn, a reply in flight`,
      session: { id: target.id, title: 'Nightly deploy', state: 'running_turn' },
      state: 'running_turn',
      messages: [
        { id: 'm1', role: 'user', text: 'Deploy it.', createdAt: '2026-10-18T09:00:00.000Z', delivery: 'delivered' },
        { id: 'm2', role: 'assistant', text: 'Deploying.', createdAt: '2026-10-18T09:01:00.000Z', model: 'script-1' },
      ],
      inFlight: 'Checking the deploy log…',
      pendingQuestions: [],
      group: { id: 'grp_2', name: 'Release 2.4', role: 'member', members: [{ id: other.id, title: 'Head', role: 'head', state: 'idle', archived: true }] },
    });
    expect(gateway.owners.calls.at(-1)).toMatchObject({ method: 'readSession', request: { userId: 'u1', sessionId: target.id, last: 5 } });
  });

  it('reads the last 10 by default', async () => {
    const target = gateway.owners.addAgentSession('u1').session;
    await agent.call({ action: 'read_session', relay: 'this', session: target.id });
    expect(gateway.owners.calls.at(-1)?.request.last).toBe(10);
  });

  it('shows pendingQuestions with their kind', async () => {
    const target = gateway.owners.addAgentSession('u1').session;
    const questions = [
      { id: 'card_9', kind: 'ask_user', question: 'Merge?', options: ['Merge', 'Wait'] },
      { id: 'ask_3', kind: 'ask', question: 'Tonight?', options: [] },
    ];
    gateway.owners.pendingQuestions.set(target.id, questions);
    const { body } = await agent.call({ action: 'read_session', relay: 'this', session: target.id });
    expect(body.pendingQuestions).toEqual(questions);
    expect(body.summary).toContain('2 pending questions');
  });

  it('does not ask the question service about a session no ask was ever about', async () => {
    const target = gateway.owners.addAgentSession('u1').session;
    const { body } = await agent.call({ action: 'read_session', relay: 'this', session: target.id });
    expect(body).toMatchObject({ ok: true, pendingQuestions: [] });
    expect(gateway.owners.askListings).toEqual([]);
  });

  it('adds the asks pending about a session an ask was about, after the cards its turn waits on', async () => {
    const target = gateway.owners.addAgentSession('u1').session;
    gateway.owners.pendingQuestions.set(target.id, [{ id: 'card_9', kind: 'ask_user', question: 'Merge?', options: ['Merge', 'Wait'] }]);
    gateway.owners.askMarks.set(target.id, 7);
    gateway.owners.asksAbout.set(target.id, [pendingAsk('ask_4', target.id, 'Ship tonight?')]);
    const { body } = await agent.call({ action: 'read_session', relay: 'this', session: target.id });
    expect(body.pendingQuestions).toEqual([
      { id: 'card_9', kind: 'ask_user', question: 'Merge?', options: ['Merge', 'Wait'] },
      { id: 'ask_4', kind: 'ask', question: 'Ship tonight?', options: ['Yes', 'No'] },
    ]);
    expect(gateway.owners.askListings).toEqual([target.id]);
    expect(gateway.owners.askMarks.get(target.id)).toBe(7);
  });

  it('takes the mark off a session whose asks are all answered, so the next read does not ask the question service', async () => {
    const target = gateway.owners.addAgentSession('u1').session;
    gateway.owners.askMarks.set(target.id, 7);
    const first = await agent.call({ action: 'read_session', relay: 'this', session: target.id });
    expect(first.body).toMatchObject({ ok: true, pendingQuestions: [] });
    expect(gateway.owners.askMarks.has(target.id)).toBe(false);
    await agent.call({ action: 'read_session', relay: 'this', session: target.id });
    expect(gateway.owners.askListings).toEqual([target.id]);
  });

  it.each([
    ['no session', {}],
    ['last 0', { session: 's', last: 0 }],
    ['last over 100', { session: 's', last: 101 }],
    ['a session that is not a string', { session: 7 }],
  ])('answers REMOTE_RELAY_INVALID_INPUT for %s before calling anyone', async (_label, args) => {
    const { isError, body } = await agent.call({ action: 'read_session', relay: 'this', ...args });
    expect(isError).toBe(true);
    expect(body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_INVALID_INPUT' });
    expect(gateway.owners.calls).toEqual([]);
  });

  it('passes REMOTE_RELAY_NOT_FOUND through', async () => {
    const { isError, body } = await agent.call({ action: 'read_session', relay: 'this', session: 'nope' });
    expect(isError).toBe(true);
    expect(body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_NOT_FOUND' });
  });

  it("does not read another user's session", async () => {
    const theirs = gateway.owners.addAgentSession('u2').session;
    expect((await agent.call({ action: 'read_session', relay: 'this', session: theirs.id })).body).toMatchObject({ code: 'REMOTE_RELAY_NOT_FOUND' });
  });

  it("keeps an owner's refusal details", async () => {
    gateway.owners.refusals.set(
      'readSession',
      new AppError('REMOTE_RELAY_INVALID_INPUT', 'invalid_argument', 'last out of range', { details: { field: 'last' } }),
    );
    const { body } = await agent.call({ action: 'read_session', relay: 'this', session: 'x', last: 3 });
    expect(body).toEqual({ ok: false, code: 'REMOTE_RELAY_INVALID_INPUT', error: 'last out of range', field: 'last' });
  });
});
