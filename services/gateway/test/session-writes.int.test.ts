import { AppError } from '@relay/errors';
import { CardKind } from '@relay/proto/relay/question/v1/question_service';
import { SessionState, TurnStatus } from '@relay/proto/relay/session/v1/session';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentsClosedAfterEach } from './mcp-agent.ts';
import { startGateway, type TestGateway } from './start-gateway.ts';

let gateway: TestGateway;
/** A fresh calling conversation (so "the first session it starts" is fresh too). */
const newAgent = agentsClosedAfterEach(() => gateway);

beforeAll(async () => {
  gateway = await startGateway('desk');
});

afterAll(async () => {
  await gateway.close();
});

function target(fields: Parameters<TestGateway['owners']['addAgentSession']>[1] = {}) {
  return gateway.owners.addAgentSession('u1', { title: 'Nightly deploy', ...fields }).session;
}

/** Asserts nothing was created, sent or changed, and no card was shown. */
function expectNothingWritten({ cards = 0 } = {}) {
  expect(gateway.owners.writes()).toEqual([]);
  expect(gateway.owners.cards).toHaveLength(cards);
}

describe('send', () => {
  it('queues the prompt with the caller turn provenance, waits, and answers the reply', async () => {
    const agent = await newAgent({ title: 'Planner', model: 'script-1' });
    const session = target();
    gateway.owners.turnHops = 1;

    const { isError, body } = await agent.call({ action: 'send', relay: 'this', session: session.id, text: 'Did the deploy go through?' });
    expect(isError).toBe(false);
    const sent = gateway.owners.writes();
    expect(sent).toHaveLength(1);
    const messageId = body.message_id as string;
    expect(body).toEqual({
      ok: true,
      relay: 'desk',
      summary: `send → desk session ${session.id.slice(0, 8)}: done: "script-1: Did the deploy go through?"`,
      status: 'done',
      session: session.id,
      message_id: messageId,
      reply: { text: 'script-1: Did the deploy go through?', model: 'script-1' },
      delivery: 'delivered',
      openUrl: `https://desk.example.com/sessions/${session.id}`,
    });
    expect(sent[0]?.request).toMatchObject({
      userId: 'u1',
      callerSessionId: agent.session.id,
      sessionId: session.id,
      text: 'Did the deploy go through?',
      provenance: { originRelay: 'desk', originSessionId: agent.session.id, originSessionTitle: 'Planner', model: 'script-1', hops: 1 },
      dryRun: false,
    });
    // Checked first with a dry run, then queued, then waited for.
    const order = gateway.owners.calls.map((call) => `${call.method}${call.request.dryRun === true ? ' (dry run)' : ''}`);
    expect(order).toEqual(['getConversation', 'sendMessage (dry run)', 'sendMessage', 'wait']);
    expect(gateway.owners.calls.at(-1)?.request).toMatchObject({ sessionId: session.id, messageId, waitSeconds: 600 });
  });

  it('passes mode, model and effort on, and a billing switch with provider', async () => {
    const agent = await newAgent();
    const session = target();
    const { body } = await agent.call({
      action: 'send',
      relay: 'this',
      session: session.id,
      text: 'Go on.',
      provider: 'claude-api',
      model: 'm',
      effort: 'low',
      mode: 'plan',
    });
    expect(body).toMatchObject({ ok: true, billing: 'API key' });
    expect(body.summary).toContain('(billing switched to API key)');
    expect(gateway.owners.writes()[0]?.request).toMatchObject({ provider: 'claude-api', model: 'm', effort: 'low', mode: 'plan' });
  });

  it('reports the modelNote', async () => {
    const agent = await newAgent();
    gateway.owners.notes.modelNote = 'gpt-5.4 runs as gpt-5.4-mini here';
    const { body } = await agent.call({ action: 'send', relay: 'this', session: target().id, text: 'x' });
    expect(body.modelNote).toBe('gpt-5.4 runs as gpt-5.4-mini here');
  });

  it.each([
    ['no session', { text: 'hi' }],
    ['no text', { session: 's' }],
    ['a negative wait', { session: 's', text: 'hi', wait_seconds: -5 }],
    ['a fractional wait', { session: 's', text: 'hi', wait_seconds: 1.5 }],
  ])('answers REMOTE_RELAY_INVALID_INPUT for %s before calling anyone', async (_label, args) => {
    const agent = await newAgent();
    const { isError, body } = await agent.call({ action: 'send', relay: 'this', ...args });
    expect(isError).toBe(true);
    expect(body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_INVALID_INPUT' });
    expect(gateway.owners.calls).toEqual([]);
  });

  it('refuses to send to its own conversation (REMOTE_RELAY_FORBIDDEN) before calling anyone', async () => {
    const agent = await newAgent();
    const { isError, body } = await agent.call({ action: 'send', relay: 'this', session: agent.session.id, text: 'hi' });
    expect(isError).toBe(true);
    expect(body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_FORBIDDEN' });
    expect(gateway.owners.calls).toEqual([]);
  });

  it.each([
    ['REMOTE_RELAY_UNKNOWN_MODEL', 'invalid_argument', { suggestions: ['gpt-5.4'], models: ['gpt-5.4', 'gpt-5.4-mini'] }],
    ['REMOTE_RELAY_ARCHIVED', 'failed_precondition', {}],
    ['REMOTE_RELAY_NOT_FOUND', 'not_found', {}],
    ['REMOTE_RELAY_FORBIDDEN', 'permission_denied', {}],
    ['REMOTE_RELAY_ACTIVE_LIMIT', 'resource_exhausted', {}],
    ['REMOTE_RELAY_PROVIDER_UNAVAILABLE', 'failed_precondition', { remoteCode: 'CLAUDE_API_CAP_REACHED' }],
    ['REMOTE_RELAY_UNSUPPORTED', 'unimplemented', {}],
  ] as const)('passes %s through with its details, and sends nothing', async (code, kind, details) => {
    const agent = await newAgent({ mode: 'ask' });
    gateway.owners.refusals.set('sendMessage', new AppError(code, kind, `refused: ${code}. Nothing was sent.`, { details }));
    const { isError, body } = await agent.call({ action: 'send', relay: 'this', session: target().id, text: 'hi' });
    expect(isError).toBe(true);
    expect(body).toEqual({ ok: false, code, error: `refused: ${code}. Nothing was sent.`, ...details });
    expectNothingWritten();
  });

  describe('in the ask and plan modes', () => {
    it.each(['ask', 'plan'])('asks on a card in %s mode, and sends on Allow', async (mode) => {
      const agent = await newAgent({ mode });
      const session = target();
      const { body } = await agent.call({ action: 'send', relay: 'this', session: session.id, text: 'Deploy now.' });
      expect(body).toMatchObject({ ok: true, status: 'done' });
      expect(gateway.owners.cards).toEqual([
        expect.objectContaining({
          userId: 'u1',
          sessionId: agent.session.id,
          kind: CardKind.CARD_KIND_APPROVAL,
          title: 'Send a prompt to "Nightly deploy" on desk',
          lines: ['Prompt: "Deploy now."'],
        }),
      ]);
      expect(gateway.owners.cardWaits).toEqual([600]);
      expect(gateway.owners.writes()).toHaveLength(1);
    });

    it('names the billing switch on the card', async () => {
      const agent = await newAgent({ mode: 'ask' });
      await agent.call({ action: 'send', relay: 'this', session: target().id, text: 'x', provider: 'claude' });
      expect(gateway.owners.cards[0]?.lines).toContain('Switches billing to subscription');
    });

    it('refuses with REMOTE_RELAY_PERMISSION when the user denies, and sends nothing', async () => {
      const agent = await newAgent({ mode: 'ask' });
      gateway.owners.cardDecision = 'deny';
      const { isError, body } = await agent.call({ action: 'send', relay: 'this', session: target().id, text: 'Deploy now.' });
      expect(isError).toBe(true);
      expect(body).toEqual({
        ok: false,
        code: 'REMOTE_RELAY_PERMISSION',
        error: 'The user denied sending a prompt to "Nightly deploy" on desk. Nothing was sent.',
      });
      expectNothingWritten({ cards: 1 });
    });

    it('refuses with REMOTE_RELAY_PERMISSION when the card is still pending when the wait runs out', async () => {
      const agent = await newAgent({ mode: 'plan' });
      gateway.owners.cardDecision = 'pending';
      gateway.owners.settings.maxWaitSeconds = 120;
      const { body } = await agent.call({ action: 'send', relay: 'this', session: target().id, text: 'x' });
      expect(body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_PERMISSION' });
      expect(body.error).toContain('within 120 s');
      expect(gateway.owners.cardWaits).toEqual([120]);
      expectNothingWritten({ cards: 1 });
    });

    it('answers REMOTE_RELAY_NO_ACTIVE_TURN without a running turn to ask in, and shows no card', async () => {
      const agent = await newAgent({ mode: 'ask' });
      gateway.owners.noRunningTurn.add(agent.session.id);
      const { isError, body } = await agent.call({ action: 'send', relay: 'this', session: target().id, text: 'x' });
      expect(isError).toBe(true);
      expect(body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_NO_ACTIVE_TURN' });
      expectNothingWritten();
    });

    it('checks with a dry run before the card: a refusal shows no card', async () => {
      const agent = await newAgent({ mode: 'ask' });
      const { body } = await agent.call({ action: 'send', relay: 'this', session: 'nope', text: 'x' });
      expect(body).toMatchObject({ code: 'REMOTE_RELAY_NOT_FOUND' });
      expectNothingWritten();
    });
  });

  it('asks no card in agent mode', async () => {
    const agent = await newAgent({ mode: 'agent' });
    await agent.call({ action: 'send', relay: 'this', session: target().id, text: 'x' });
    expect(gateway.owners.cards).toEqual([]);
  });
});

describe('create_session', () => {
  it('asks before the first session a conversation starts, then creates it and answers the spec fields', async () => {
    const agent = await newAgent({ title: 'Planner', cwd: '/home/dev/shop' });
    const { isError, body } = await agent.call({
      action: 'create_session',
      relay: 'this',
      title: 'Review: server/',
      cwd: '/home/dev/shop',
      text: 'Review the code under server/.',
    });
    expect(isError).toBe(false);
    const created = gateway.owners.sessions.at(-1)!;
    expect(body).toEqual({
      ok: true,
      relay: 'desk',
      summary: `create_session → desk session ${created.id.slice(0, 8)} "Review: server/": done: "script-1: Review the code under server/."`,
      status: 'done',
      session: created.id,
      message_id: body.message_id,
      reply: { text: 'script-1: Review the code under server/.', model: 'script-1' },
      delivery: 'delivered',
      openUrl: `https://desk.example.com/sessions/${created.id}`,
      provider: 'script',
      model: 'script-1',
      mode: 'agent',
      effort: '',
      title: 'Review: server/',
      group: { id: 'grp_caller', name: 'Planner', role: 'member' },
    });
    expect(gateway.owners.cards).toEqual([
      expect.objectContaining({
        sessionId: agent.session.id,
        kind: CardKind.CARD_KIND_APPROVAL,
        title: 'Start a session on desk: "Review: server/"',
        lines: ['Provider: script · Model: script-1', 'Folder: /home/dev/shop', 'Group: Planner (grp_caller)', 'Prompt: "Review the code under server/."'],
      }),
    ]);
    expect(gateway.owners.writes()[0]?.request).toMatchObject({
      callerSessionId: agent.session.id,
      provenance: { originRelay: 'desk', originSessionId: agent.session.id, originSessionTitle: 'Planner', hops: 0 },
    });
  });

  it('asks no card for a later session in agent mode', async () => {
    const agent = await newAgent();
    await agent.call({ action: 'create_session', relay: 'this', text: 'one' });
    await agent.call({ action: 'create_session', relay: 'this', text: 'two' });
    expect(gateway.owners.cards).toHaveLength(1);
    expect(gateway.owners.writes()).toHaveLength(2);
  });

  it('asks one card for a later session in ask mode, even when several reasons apply to the first', async () => {
    const agent = await newAgent({ mode: 'ask' });
    await agent.call({ action: 'create_session', relay: 'this', text: 'one' });
    await agent.call({ action: 'create_session', relay: 'this', text: 'two' });
    expect(gateway.owners.cards).toHaveLength(2);
  });

  it('creates nothing when the user denies the first session', async () => {
    const agent = await newAgent();
    gateway.owners.cardDecision = 'deny';
    const { isError, body } = await agent.call({ action: 'create_session', relay: 'this', title: 'Review', text: 'x' });
    expect(isError).toBe(true);
    expect(body).toEqual({ ok: false, code: 'REMOTE_RELAY_PERMISSION', error: 'The user denied starting a session on desk: "Review". Nothing was created.' });
    expectNothingWritten({ cards: 1 });
  });

  it('answers REMOTE_RELAY_NO_ACTIVE_TURN for the first session without a running turn', async () => {
    const agent = await newAgent();
    gateway.owners.noRunningTurn.add(agent.session.id);
    const { body } = await agent.call({ action: 'create_session', relay: 'this', text: 'x' });
    expect(body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_NO_ACTIVE_TURN' });
    expect(body.error).toContain('Nothing was created.');
    expectNothingWritten();
  });

  it('puts the session into a named group, naming it on the card', async () => {
    const agent = await newAgent();
    const { body } = await agent.call({ action: 'create_session', relay: 'this', group: 'release 2.4', text: 'Run the checklist.' });
    expect(body.group).toEqual({ id: 'grp_release', name: 'Release 2.4', role: 'member' });
    expect(gateway.owners.cards[0]?.lines).toContain('Group: Release 2.4 (grp_release)');
  });

  it('refuses an unknown group with the groups there, before any card, and creates nothing', async () => {
    const agent = await newAgent();
    const { isError, body } = await agent.call({ action: 'create_session', relay: 'this', group: 'Relase', text: 'x' });
    expect(isError).toBe(true);
    expect(body).toMatchObject({
      ok: false,
      code: 'REMOTE_RELAY_UNKNOWN_GROUP',
      groups: [{ id: 'grp_release', name: 'Release 2.4' }],
      groupsTotal: 1,
    });
    expectNothingWritten();
  });

  it('answers repo and branch for a cloud session', async () => {
    const agent = await newAgent();
    const { body } = await agent.call({
      action: 'create_session',
      relay: 'this',
      provider: 'claude-cloud',
      repo: 'example-org/sample-repo',
      branch: 'feature/banner',
      text: 'Change the banner.',
      wait_seconds: 60,
    });
    expect(body).toMatchObject({ ok: true, provider: 'claude-cloud', repo: 'example-org/sample-repo', branch: 'feature/banner' });
    expect(gateway.owners.calls.at(-1)?.request.waitSeconds).toBe(60);
  });

  it('reports a groupWarning in the summary and asks the agent to tell the user', async () => {
    const agent = await newAgent();
    gateway.owners.notes.groupWarning = 'the group "Release 2.4" was dissolved.';
    const { body } = await agent.call({ action: 'create_session', relay: 'this', group: 'Release 2.4', text: 'x' });
    expect(body).toMatchObject({ ok: true, group: null, groupWarning: 'the group "Release 2.4" was dissolved.' });
    expect(body.summary).toMatch(/\(no group: the group "Release 2\.4" was dissolved\.\)$/);
    expect(body.note).toContain('Tell the user');
  });

  it('reports the modelNote, and caps the wait with a note', async () => {
    const agent = await newAgent();
    gateway.owners.notes.modelNote = 'model list unknown; script-9 goes on unchecked';
    const { body } = await agent.call({ action: 'create_session', relay: 'this', text: 'x', wait_seconds: 3600 });
    expect(body.modelNote).toBe('model list unknown; script-9 goes on unchecked');
    expect(body.note).toContain('wait_seconds 3600');
    expect(gateway.owners.calls.at(-1)?.request.waitSeconds).toBe(600);
  });

  it.each([
    ['REMOTE_RELAY_UNKNOWN_MODEL', 'invalid_argument', { suggestions: ['gpt-5.4'], models: ['gpt-5.4'] }],
    ['REMOTE_RELAY_NESTING', 'permission_denied', {}],
    ['REMOTE_RELAY_ACTIVE_LIMIT', 'resource_exhausted', {}],
    ['REMOTE_RELAY_PROVIDER_UNAVAILABLE', 'failed_precondition', { remoteCode: 'CLAUDE_API_CAP_REACHED' }],
    ['REMOTE_RELAY_UNSUPPORTED', 'unimplemented', {}],
    ['COPILOT_MODEL_UNAVAILABLE', 'invalid_argument', { suggestions: ['claude-opus-5.5'] }],
    ['CLAUDE_PROVIDER_REQUIRED', 'invalid_argument', {}],
  ] as const)('passes %s through with its details, before any card, and creates nothing', async (code, kind, details) => {
    const agent = await newAgent();
    gateway.owners.refusals.set('createSession', new AppError(code, kind, `refused: ${code}. Nothing was created.`, { details }));
    const { isError, body } = await agent.call({ action: 'create_session', relay: 'this', text: 'x', model: 'gpt-5-4' });
    expect(isError).toBe(true);
    expect(body).toEqual({ ok: false, code, error: `refused: ${code}. Nothing was created.`, ...details });
    expectNothingWritten();
  });

  it('refuses a call without text, and one naming an argument it does not take, before calling anyone', async () => {
    const agent = await newAgent();
    for (const args of [{ title: 'x' }, { text: 'x', session: 's' }, { text: 'x', scope: 'all' }]) {
      const { body } = await agent.call({ action: 'create_session', relay: 'this', ...args });
      expect(body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_INVALID_INPUT' });
      expect(body.error).toContain('Nothing was created.');
    }
    expect(gateway.owners.calls).toEqual([]);
  });

  it('forwards a call to an unlocked paired relay with relay "this", the provenance one hop on, and answers with relay set to its name', async () => {
    const agent = await newAgent({ title: 'Lead' });
    gateway.owners.paired.push({
      name: 'build-box',
      url: 'https://build-box.example.com',
      online: true,
      version: '0.9.19',
      level: 3,
      ownerUserId: 'u1',
      pairedAt: undefined,
    });
    gateway.owners.unlocked.set(agent.session.id, [{ relay: 'build-box', byMention: false }]);
    const { body } = await agent.call({ action: 'send', relay: 'build-box', session: 's1', text: 'reply hi', wait_seconds: 5 });
    expect(body).toMatchObject({ ok: true, relay: 'build-box' });
    expect(gateway.owners.forwarded).toHaveLength(1);
    const forwarded = gateway.owners.forwarded[0]!;
    expect(forwarded).toMatchObject({
      relay: 'build-box',
      action: 'send',
      provenance: { originRelay: 'desk', originSessionId: agent.session.id, originSessionTitle: 'Lead', hops: 1, viaRelays: ['desk'] },
    });
    expect(JSON.parse(forwarded.argumentsJson)).toEqual({ relay: 'this', session: 's1', text: 'reply hi', wait_seconds: 5 });
  });

  it('in the ask mode has the paired relay check the call before the card, and asks nothing about a call it refuses', async () => {
    const agent = await newAgent({ mode: 'ask' });
    gateway.owners.paired.push({
      name: 'build-box',
      url: 'https://build-box.example.com',
      online: true,
      version: '0.9.19',
      level: 4,
      ownerUserId: 'u1',
      pairedAt: undefined,
    });
    gateway.owners.unlocked.set(agent.session.id, [{ relay: 'build-box', byMention: true }]);
    expect((await agent.call({ action: 'send', relay: 'build-box', session: 'missing', text: 'reply hi' })).body).toMatchObject({
      ok: false,
      code: 'REMOTE_RELAY_NOT_FOUND',
    });
    expect(gateway.owners.cards).toHaveLength(0);
    expect(gateway.owners.forwarded.map((call) => call.dryRun)).toEqual([true]);

    expect((await agent.call({ action: 'send', relay: 'build-box', session: 's1', text: 'reply hi' })).body).toMatchObject({ ok: true, relay: 'build-box' });
    expect(gateway.owners.cards).toHaveLength(1);
    expect(gateway.owners.forwarded.map((call) => call.dryRun)).toEqual([true, true, false]);
  });

  it('asks before the first session a conversation starts on a paired relay, and counts it among the sessions it started', async () => {
    const agent = await newAgent();
    gateway.owners.paired.push({
      name: 'build-box',
      url: 'https://build-box.example.com',
      online: true,
      version: '0.9.19',
      level: 4,
      ownerUserId: 'u1',
      pairedAt: undefined,
    });
    gateway.owners.unlocked.set(agent.session.id, [{ relay: 'build-box', byMention: true }]);
    expect((await agent.call({ action: 'create_session', relay: 'build-box', text: 'reply hi' })).body).toMatchObject({
      ok: true,
      relay: 'build-box',
      session: 'remote-1',
    });
    expect(gateway.owners.cards).toHaveLength(1);
    expect(gateway.owners.forwarded.map((call) => call.dryRun)).toEqual([true, false]);
    expect(gateway.owners.calls.filter((call) => call.method === 'noteRemoteSessionStarted').map((call) => call.request)).toEqual([
      { sessionId: agent.session.id, relay: 'build-box', remoteSessionId: 'remote-1' },
    ]);
  });

  it('keeps a prompt at 2 hops from a third relay the user did not unlock by mention; reads pass', async () => {
    const agent = await newAgent();
    gateway.owners.turnHops = 2;
    gateway.owners.paired.push({
      name: 'build-box',
      url: 'https://build-box.example.com',
      online: true,
      version: '0.9.19',
      level: 4,
      ownerUserId: 'u1',
      pairedAt: undefined,
    });
    gateway.owners.unlocked.set(agent.session.id, [{ relay: 'build-box', byMention: false }]);
    expect((await agent.call({ action: 'send', relay: 'build-box', session: 's1', text: 'reply hi' })).body).toMatchObject({ code: 'REMOTE_RELAY_HOP_LIMIT' });
    // Reading is never limited by hops.
    expect((await agent.call({ action: 'read_session', relay: 'build-box', session: 's1' })).body).toMatchObject({ ok: true });
    gateway.owners.unlocked.set(agent.session.id, [{ relay: 'build-box', byMention: true }]);
    expect((await agent.call({ action: 'send', relay: 'build-box', session: 's1', text: 'reply hi' })).body).toMatchObject({ ok: true, relay: 'build-box' });
    expect(gateway.owners.forwarded.map((call) => call.action)).toEqual(['read_session', 'send']);
    expect(gateway.owners.forwarded[1]!.provenance?.hops).toBe(3);
  });

  it('refuses a paired relay until it is unlocked, then below its level, and REMOTE_RELAY_UNKNOWN_RELAY for an unknown one, before anything is forwarded', async () => {
    const agent = await newAgent();
    gateway.owners.paired.push({
      name: 'build-box',
      url: 'https://build-box.example.com',
      online: true,
      version: '0.9.19',
      level: 3,
      ownerUserId: 'u1',
      pairedAt: undefined,
    });
    expect((await agent.call({ action: 'create_session', relay: 'build-box', text: 'x' })).body).toMatchObject({ code: 'REMOTE_RELAY_LOCKED' });
    gateway.owners.unlocked.set(agent.session.id, [{ relay: 'build-box', byMention: true }]);
    // read_and_prompt: a send passes, create_session needs full.
    expect((await agent.call({ action: 'create_session', relay: 'build-box', text: 'x' })).body).toMatchObject({ code: 'REMOTE_RELAY_PERMISSION' });
    expect((await agent.call({ action: 'create_session', relay: 'laptop', text: 'x' })).body).toMatchObject({ code: 'REMOTE_RELAY_UNKNOWN_RELAY' });
    expect((await agent.call({ action: 'schedule', relay: 'build-box', session: 's', text: 'x', at: '2030-01-01T00:00:00Z' })).body).toMatchObject({
      code: 'REMOTE_RELAY_UNSUPPORTED',
    });
    expect(gateway.owners.forwarded).toEqual([]);
    expectNothingWritten();
  });
});

describe('update_session', () => {
  it('changes a session its conversation started without asking, and answers settings and changed', async () => {
    const agent = await newAgent();
    const session = target({ startedBySessionId: agent.session.id, group: { id: 'grp_release', name: 'Release 2.4', role: 'member' } });
    const { isError, body } = await agent.call({ action: 'update_session', relay: 'this', session: session.id, model: 'script-2', effort: 'low' });
    expect(isError).toBe(false);
    expect(body).toEqual({
      ok: true,
      relay: 'desk',
      summary: `update_session → desk session ${session.id.slice(0, 8)}: model, effort`,
      session: session.id,
      settings: {
        model: 'script-2',
        effort: 'low',
        mode: 'agent',
        auto_compact_window: 'auto',
        title: 'Nightly deploy',
        group: { id: 'grp_release', name: 'Release 2.4', role: 'member' },
        thinking_enabled: true,
        thinking_display: 'summarized',
        cwd: '/tmp',
      },
      changed: ['model', 'effort'],
    });
    expect(gateway.owners.cards).toEqual([]);
    expect(gateway.owners.writes()[0]?.request).toMatchObject({ model: 'script-2', effort: 'low', allowed: false, dryRun: false });
  });

  it("asks the user's Allow for a session it did not start, names the change, and the Allow covers later changes", async () => {
    const agent = await newAgent();
    const session = target();
    const { body } = await agent.call({
      action: 'update_session',
      relay: 'this',
      session: session.id,
      model: 'script-2',
      effort: 'high',
      group: 'Release 2.4',
    });
    expect(body).toMatchObject({ ok: true, changed: ['model', 'effort', 'group'] });
    expect(gateway.owners.cards).toEqual([
      expect.objectContaining({
        sessionId: agent.session.id,
        title: 'Change "Nightly deploy" on desk',
        lines: [
          'Model: script-2 · Effort: high',
          'Group: Release 2.4 (grp_release)',
          "Allow also covers this conversation's later changes to sessions it did not start on desk.",
        ],
      }),
    ]);
    expect(gateway.owners.writes()[0]?.request).toMatchObject({ allowed: true });

    await agent.call({ action: 'update_session', relay: 'this', session: session.id, title: 'Deploy' });
    expect(gateway.owners.cards).toHaveLength(1);
  });

  it('changes nothing when the user denies', async () => {
    const agent = await newAgent();
    const session = target();
    gateway.owners.cardDecision = 'deny';
    const { isError, body } = await agent.call({ action: 'update_session', relay: 'this', session: session.id, model: 'script-2' });
    expect(isError).toBe(true);
    expect(body).toEqual({ ok: false, code: 'REMOTE_RELAY_PERMISSION', error: 'The user denied changing "Nightly deploy" on desk. Nothing was changed.' });
    expect(session.model).toBe('script-1');
    expectNothingWritten({ cards: 1 });
  });

  it('answers REMOTE_RELAY_NO_ACTIVE_TURN when an Allow is needed and no turn runs', async () => {
    const agent = await newAgent();
    gateway.owners.noRunningTurn.add(agent.session.id);
    const { body } = await agent.call({ action: 'update_session', relay: 'this', session: target().id, model: 'script-2' });
    expect(body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_NO_ACTIVE_TURN' });
    expectNothingWritten();
  });

  it('asks in ask mode even for a session it started', async () => {
    const agent = await newAgent({ mode: 'ask' });
    const session = target();
    session.startedBySessionId = agent.session.id;
    await agent.call({ action: 'update_session', relay: 'this', session: session.id, mode: 'plan' });
    expect(gateway.owners.cards).toHaveLength(1);
    expect(gateway.owners.cards[0]?.lines).toEqual(['Mode: plan']);
    expect(gateway.owners.writes()[0]?.request).toMatchObject({ allowed: false });
  });

  it('answers changed: [] for a call that would change nothing, and asks nobody', async () => {
    const agent = await newAgent();
    const session = target();
    const { body } = await agent.call({ action: 'update_session', relay: 'this', session: session.id, model: 'script-1' });
    expect(body).toMatchObject({ ok: true, changed: [], summary: `update_session → desk session ${session.id.slice(0, 8)}: nothing to change` });
    expectNothingWritten();
  });

  it('answers groupCreated for a new group, relaunched for a new folder, and a string auto_compact_window', async () => {
    const agent = await newAgent();
    const session = target({ startedBySessionId: agent.session.id });
    const { body } = await agent.call({
      action: 'update_session',
      relay: 'this',
      session: session.id,
      group: 'Hotfix',
      cwd: '/srv/app',
      auto_compact_window: 200000,
    });
    expect(body).toMatchObject({
      ok: true,
      changed: ['auto_compact_window', 'cwd', 'group'],
      relaunched: true,
      groupCreated: { id: 'grp_hotfix', name: 'Hotfix', memberCount: 1 },
    });
    expect(gateway.owners.writes()[0]?.request).toMatchObject({ autoCompactWindow: '200000' });
  });

  it('refuses a call without a setting, and one naming an argument it does not take, before calling anyone', async () => {
    const agent = await newAgent();
    const none = await agent.call({ action: 'update_session', relay: 'this', session: 's', thinking_enabled: false, title: '' });
    expect(none.body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_INVALID_INPUT' });
    expect(none.body.error).toContain('at least one setting');
    const other = await agent.call({ action: 'update_session', relay: 'this', session: 's', model: 'x', text: 'hi' });
    expect(other.body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_INVALID_INPUT' });
    expect(other.body.error).toContain('Nothing was changed.');
    const noSession = await agent.call({ action: 'update_session', relay: 'this', model: 'x' });
    expect(noSession.body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_INVALID_INPUT' });
    expect(gateway.owners.calls).toEqual([]);
  });

  it('refuses to change its own conversation', async () => {
    const agent = await newAgent();
    const { body } = await agent.call({ action: 'update_session', relay: 'this', session: agent.session.id, model: 'x' });
    expect(body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_FORBIDDEN' });
    expect(gateway.owners.calls).toEqual([]);
  });

  it.each([
    ['REMOTE_RELAY_BUSY', 'failed_precondition', {}],
    ['REMOTE_RELAY_UNKNOWN_MODEL', 'invalid_argument', { suggestions: ['script-1'], models: ['script-1'] }],
    ['REMOTE_RELAY_UNKNOWN_GROUP', 'invalid_argument', { groups: [{ id: 'grp_release', name: 'Release 2.4' }], groupsTotal: 1 }],
    ['REMOTE_RELAY_ARCHIVED', 'failed_precondition', {}],
    ['REMOTE_RELAY_NOT_FOUND', 'not_found', {}],
  ] as const)('passes %s through from the dry run, before any card, and changes nothing', async (code, kind, details) => {
    const agent = await newAgent({ mode: 'ask' });
    gateway.owners.refusals.set('updateSession', new AppError(code, kind, `refused: ${code}`, { details }));
    const { isError, body } = await agent.call({ action: 'update_session', relay: 'this', session: target().id, cwd: '/srv' });
    expect(isError).toBe(true);
    expect(body).toEqual({ ok: false, code, error: `refused: ${code}`, ...details });
    expectNothingWritten();
  });

  it('reports what was written when a later step failed (partial write)', async () => {
    const agent = await newAgent();
    const session = target({ startedBySessionId: agent.session.id });
    // The dry run passes; the real call fails after writing the model.
    gateway.owners.realRefusals.set(
      'updateSession',
      new AppError('REMOTE_RELAY_BUSY', 'failed_precondition', 'The session cannot move to another folder now: a turn runs.', {
        details: { changed: ['model'] },
      }),
    );
    const { body } = await agent.call({ action: 'update_session', relay: 'this', session: session.id, model: 'script-2', cwd: '/srv' });
    expect(body).toEqual({ ok: false, code: 'REMOTE_RELAY_BUSY', error: 'The session cannot move to another folder now: a turn runs.', changed: ['model'] });
  });

  it("on a paired relay asks the Allow once per conversation and relay, with the local card's text, and remembers it", async () => {
    const agent = await newAgent();
    for (const name of ['build-box', 'lab']) {
      gateway.owners.paired.push({
        name,
        url: `https://${name}.example.com`,
        online: true,
        version: '0.9.19',
        level: 4,
        ownerUserId: 'u1',
        pairedAt: undefined,
      });
    }
    gateway.owners.unlocked.set(agent.session.id, [
      { relay: 'build-box', byMention: true },
      { relay: 'lab', byMention: true },
    ]);
    const change = (relay: string, session: string) => agent.call({ action: 'update_session', relay, session, model: 'script-2', effort: 'high' });

    expect((await change('build-box', 'theirs-1')).body).toMatchObject({ ok: true, relay: 'build-box' });
    expect(gateway.owners.cards).toEqual([
      expect.objectContaining({
        sessionId: agent.session.id,
        title: 'Change "Nightly deploy" on build-box',
        lines: ['Model: script-2 · Effort: high', "Allow also covers this conversation's later changes to sessions it did not start on build-box."],
      }),
    ]);
    expect(gateway.owners.calls.filter((call) => call.method === 'noteRemoteUpdateAllowed').map((call) => call.request)).toEqual([
      { sessionId: agent.session.id, relay: 'build-box' },
    ]);
    // The Allow given here never travels as a claim: that relay asks its own person on its own card.
    expect(gateway.owners.forwarded.map(({ dryRun, allowed }) => ({ dryRun, allowed }))).toEqual([
      { dryRun: true, allowed: false },
      { dryRun: false, allowed: false },
    ]);

    // Another session on the same relay: no card here.
    expect((await change('build-box', 'theirs-2')).body).toMatchObject({ ok: true, relay: 'build-box' });
    expect(gateway.owners.cards).toHaveLength(1);
    expect(gateway.owners.forwarded.at(-1)).toMatchObject({ dryRun: false, allowed: false });

    // Another relay asks again.
    expect((await change('lab', 'theirs-1')).body).toMatchObject({ ok: true, relay: 'lab' });
    expect(gateway.owners.cards.map((card) => card.title)).toEqual(['Change "Nightly deploy" on build-box', 'Change "Nightly deploy" on lab']);
  });

  it('on a paired relay records no Allow when the user denies, and forwards nothing', async () => {
    const agent = await newAgent();
    gateway.owners.paired.push({
      name: 'build-box',
      url: 'https://build-box.example.com',
      online: true,
      version: '0.9.19',
      level: 4,
      ownerUserId: 'u1',
      pairedAt: undefined,
    });
    gateway.owners.unlocked.set(agent.session.id, [{ relay: 'build-box', byMention: true }]);
    gateway.owners.cardDecision = 'deny';
    const { body } = await agent.call({ action: 'update_session', relay: 'build-box', session: 'theirs-1', model: 'script-2' });
    expect(body).toMatchObject({
      ok: false,
      code: 'REMOTE_RELAY_PERMISSION',
      error: 'The user denied changing "Nightly deploy" on build-box. Nothing was changed.',
    });
    expect(gateway.owners.calls.filter((call) => call.method === 'noteRemoteUpdateAllowed')).toEqual([]);
    expect(gateway.owners.forwarded.map((call) => call.dryRun)).toEqual([true]);
  });
});

describe('stop', () => {
  it('requests a stop when a turn runs, and says when nothing was running', async () => {
    const agent = await newAgent();
    const session = target({ state: SessionState.SESSION_STATE_RUNNING_TURN });
    const first = await agent.call({ action: 'stop', relay: 'this', session: session.id });
    expect(first.body).toEqual({
      ok: true,
      relay: 'desk',
      summary: `stop → desk session ${session.id.slice(0, 8)}: stop requested`,
      session: session.id,
      stopRequested: true,
    });
    const second = await agent.call({ action: 'stop', relay: 'this', session: session.id });
    expect(second.body).toMatchObject({ ok: true, stopRequested: false, summary: `stop → desk session ${session.id.slice(0, 8)}: nothing was running` });
    expect(gateway.owners.cards).toEqual([]);
  });

  it('asks in ask mode, naming the session, and stops nothing on Deny', async () => {
    const agent = await newAgent({ mode: 'ask' });
    const session = target({ state: SessionState.SESSION_STATE_RUNNING_TURN });
    gateway.owners.cardDecision = 'deny';
    const { body } = await agent.call({ action: 'stop', relay: 'this', session: session.id });
    expect(body).toEqual({
      ok: false,
      code: 'REMOTE_RELAY_PERMISSION',
      error: 'The user denied stopping the turn in "Nightly deploy" on desk. Nothing was stopped.',
    });
    expect(gateway.owners.cards[0]?.title).toBe('Stop the turn in "Nightly deploy" on desk');
    expectNothingWritten({ cards: 1 });
  });

  it('refuses an unknown session before the card in ask mode', async () => {
    const agent = await newAgent({ mode: 'ask' });
    const { body } = await agent.call({ action: 'stop', relay: 'this', session: 'nope' });
    expect(body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_NOT_FOUND' });
    expectNothingWritten();
  });

  it('refuses its own conversation and a call without session', async () => {
    const agent = await newAgent();
    expect((await agent.call({ action: 'stop', relay: 'this', session: agent.session.id })).body).toMatchObject({ code: 'REMOTE_RELAY_FORBIDDEN' });
    expect((await agent.call({ action: 'stop', relay: 'this' })).body).toMatchObject({ code: 'REMOTE_RELAY_INVALID_INPUT' });
    expect(gateway.owners.calls).toEqual([]);
  });

  it('passes REMOTE_RELAY_NOT_FOUND and REMOTE_RELAY_FORBIDDEN through', async () => {
    const agent = await newAgent();
    gateway.owners.refusals.set('stopTurn', new AppError('REMOTE_RELAY_FORBIDDEN', 'permission_denied', 'not yours'));
    expect((await agent.call({ action: 'stop', relay: 'this', session: target().id })).body).toMatchObject({ code: 'REMOTE_RELAY_FORBIDDEN' });
    gateway.owners.refusals.clear();
    expect((await agent.call({ action: 'stop', relay: 'this', session: 'nope' })).body).toMatchObject({ code: 'REMOTE_RELAY_NOT_FOUND' });
  });
});

describe('archive', () => {
  it('archives a session', async () => {
    const agent = await newAgent();
    const session = target();
    const { isError, body } = await agent.call({ action: 'archive', relay: 'this', session: session.id });
    expect(isError).toBe(false);
    expect(body).toEqual({
      ok: true,
      relay: 'desk',
      summary: `archive → desk session ${session.id.slice(0, 8)} "Nightly deploy": archived`,
      session: session.id,
      title: 'Nightly deploy',
      archived: true,
    });
    expect(session.archived).toBe(true);
  });

  it('asks in plan mode and archives on Allow', async () => {
    const agent = await newAgent({ mode: 'plan' });
    const session = target();
    await agent.call({ action: 'archive', relay: 'this', session: session.id });
    expect(gateway.owners.cards[0]?.title).toBe('Archive "Nightly deploy" on desk');
    expect(session.archived).toBe(true);
  });

  it('archives nothing on Deny or without a running turn', async () => {
    const agent = await newAgent({ mode: 'ask' });
    const session = target();
    gateway.owners.cardDecision = 'deny';
    expect((await agent.call({ action: 'archive', relay: 'this', session: session.id })).body).toMatchObject({ code: 'REMOTE_RELAY_PERMISSION' });
    gateway.owners.noRunningTurn.add(agent.session.id);
    expect((await agent.call({ action: 'archive', relay: 'this', session: session.id })).body).toMatchObject({ code: 'REMOTE_RELAY_NO_ACTIVE_TURN' });
    expect(session.archived).toBe(false);
    expectNothingWritten({ cards: 1 });
  });

  it('refuses its own conversation, and passes REMOTE_RELAY_NOT_FOUND through', async () => {
    const agent = await newAgent();
    expect((await agent.call({ action: 'archive', relay: 'this', session: agent.session.id })).body).toMatchObject({ code: 'REMOTE_RELAY_FORBIDDEN' });
    expect((await agent.call({ action: 'archive', relay: 'this', session: 'nope' })).body).toMatchObject({ code: 'REMOTE_RELAY_NOT_FOUND' });
    expect(agent.session.archived).toBe(false);
  });
});

describe('turn statuses', () => {
  it.each([
    [TurnStatus.TURN_STATUS_QUEUED, 'queued', {}],
    [TurnStatus.TURN_STATUS_RUNNING, 'running', {}],
    [TurnStatus.TURN_STATUS_STOPPED, 'stopped', {}],
    [TurnStatus.TURN_STATUS_ERROR, 'error', { error: 'script: boom' }],
    [
      TurnStatus.TURN_STATUS_WAITING_FOR_ANSWER,
      'waiting_for_answer',
      { pendingQuestions: [{ id: 'card_1', kind: 'ask_user', question: 'Merge?', options: ['Merge', 'Wait'] }] },
    ],
  ] as const)('answers status %s as %s with its fields', async (status, name, fields) => {
    const agent = await newAgent();
    gateway.owners.waitScript = async function* (request) {
      const turn = gateway.owners.turns.get(request.messageId)!;
      yield {
        result: {
          ...turn,
          status,
          replyText: '',
          error: 'error' in fields ? fields.error : '',
          pendingQuestions: 'pendingQuestions' in fields ? fields.pendingQuestions.map((q) => ({ ...q, options: [...q.options] })) : [],
        },
      };
    };
    const { isError, body } = await agent.call({ action: 'send', relay: 'this', session: target().id, text: 'x', wait_seconds: 0 });
    expect(isError).toBe(false);
    expect(body).toMatchObject({ ok: true, status: name, ...fields });
    expect(body).not.toHaveProperty('reply');
    expect(gateway.owners.calls.at(-1)?.request.waitSeconds).toBe(0);
  });
});
