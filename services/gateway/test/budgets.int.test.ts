/**
 * Budgets over delegation trees through the gateway (docs/adr/0039-tree-budgets.md), in front of the fake owners: the
 * person's user API routes (only a user's own token, checked input, nothing called for a bad body), relay_tool's
 * extension (budget on create_session and send, only checked and passed on; usage with tree; budgetNote), and across a
 * pairing: a prompt carries what the tree has left, a tree held refuses it before anything goes, and what the paired
 * relay reports back is noted. The session service's own tests cover the arithmetic and the enforcement.
 */
import { AppError } from '@relay/errors';
import { AgentLevel } from '@relay/proto/relay/pairing/v1/pairing_service';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentsClosedAfterEach, type TestAgent } from './mcp-agent.ts';
import { startGateway, type TestGateway } from './start-gateway.ts';

let gateway: TestGateway;
let userToken: string;
const newAgent = agentsClosedAfterEach(() => gateway);

beforeAll(async () => {
  gateway = await startGateway('desk');
});

afterAll(async () => {
  await gateway.close();
});

async function api(method: string, path: string, body?: unknown, token = userToken) {
  const response = await fetch(`${gateway.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

const budgetCalls = () => gateway.owners.calls.filter((call) => ['setBudget', 'removeBudget', 'checkTreeBudget', 'noteRemoteTreeSpend'].includes(call.method));

describe('the person’s budget routes', () => {
  it('sets a conversation’s budget (a meter left out is not limited) and removes it', async () => {
    userToken = gateway.owners.addUser('u1', 'member');
    const { session } = gateway.owners.addAgentSession('u1', { title: 'Root' });
    const set = await api('PUT', `/api/v1/sessions/${session.id}/budget`, { costUsd: 5, sessions: 12 });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(budgetCalls()).toEqual([{ method: 'setBudget', request: { userId: 'u1', sessionId: session.id, limits: { costUsd: 5, sessions: 12 } } }]);
    expect(set.body).toEqual({
      session: session.id,
      rows: [],
      totals: { turns: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 },
      sessionsStarted: 0,
      budgets: [
        {
          session: session.id,
          setBy: 'person',
          state: 'active',
          level: 'ok',
          startedAt: '2026-12-07T10:00:00.000Z',
          limits: { costUsd: 5, tokens: null, minutes: null, sessions: 12 },
          remaining: { costUsd: 5, tokens: null, minutes: null, sessions: 12 },
          meters: [],
          cardId: null,
        },
      ],
    });
    const removed = await api('DELETE', `/api/v1/sessions/${session.id}/budget`);
    expect(removed).toMatchObject({ status: 200, body: { budgets: [] } });
    expect((await api('GET', `/api/v1/sessions/${session.id}/tree-usage`)).body).toMatchObject({ session: session.id, budgets: [] });
  });

  it.each([
    [{ costUsd: -1 }, 'costUsd must be 0 or more'],
    [{ tokens: 1.5 }, 'tokens must be a whole number'],
    [{ sessions: 'many' }, 'sessions must be a whole number'],
    [{ dollars: 5 }, ''],
  ])('refuses %j with REMOTE_RELAY_INVALID_INPUT and calls nothing', async (body, words) => {
    userToken = gateway.owners.addUser('u1', 'member');
    const { session } = gateway.owners.addAgentSession('u1');
    const refused = await api('PUT', `/api/v1/sessions/${session.id}/budget`, body);
    expect(refused).toMatchObject({ status: 400, body: { code: 'REMOTE_RELAY_INVALID_INPUT' } });
    expect(refused.body.error).toContain(words);
    expect(budgetCalls()).toEqual([]);
  });

  it('answers only a user’s own token: a session’s token, or none, is refused before anything is read', async () => {
    userToken = gateway.owners.addUser('u1', 'member');
    const { session, token } = gateway.owners.addAgentSession('u1');
    expect((await api('PUT', `/api/v1/sessions/${session.id}/budget`, { costUsd: 5 }, token)).status).toBe(403);
    expect((await api('PUT', `/api/v1/sessions/${session.id}/budget`, { costUsd: -5 }, 'nobody')).status).toBe(401);
    expect(budgetCalls()).toEqual([]);
  });

  it('passes on the session service’s refusal of another user’s session', async () => {
    userToken = gateway.owners.addUser('u1', 'member');
    const other = gateway.owners.addAgentSession('u2').session;
    expect(await api('PUT', `/api/v1/sessions/${other.id}/budget`, { costUsd: 5 })).toMatchObject({ status: 404, body: { code: 'REMOTE_RELAY_NOT_FOUND' } });
  });
});

describe('relay_tool’s budget extension', () => {
  it('passes an agent’s budget on create_session to the session service, as limits', async () => {
    const agent = await newAgent();
    const { body } = await agent.call({ action: 'create_session', relay: 'this', text: 'reply hi', budget: { cost_usd: 2, sessions: 1 } });
    expect(body).toMatchObject({ ok: true });
    const created = gateway.owners.calls.filter((call) => call.method === 'createSession').map((call) => call.request.budget);
    expect(created).toEqual([
      { costUsd: 2, sessions: 1 },
      { costUsd: 2, sessions: 1 },
    ]);
  });

  it.each([
    [{ dollars: 2 }, 'budget takes cost_usd, tokens, minutes, sessions; not dollars.'],
    [{ cost_usd: -2 }, 'budget.cost_usd must be a number of US dollars, 0 or more.'],
    [{ sessions: 1.5 }, 'budget.sessions must be a whole number, 0 or more.'],
  ])('refuses the budget %j with REMOTE_RELAY_INVALID_INPUT before anything is written', async (budget, words) => {
    const agent = await newAgent();
    const { body } = await agent.call({ action: 'create_session', relay: 'this', text: 'reply hi', budget });
    expect(body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_INVALID_INPUT' });
    expect(body.error).toContain(words);
    expect(gateway.owners.writes()).toEqual([]);
  });

  it('answers usage with tree: the tree’s rows and totals, and the note at 80 %', async () => {
    const agent = await newAgent();
    gateway.owners.treeUsage = {
      sessionId: agent.session.id,
      rows: [{ sessionId: agent.session.id, provider: 'openai', relay: 'desk', turns: 2, inputTokens: 300, outputTokens: 100, costUsd: 4.2 }],
      totals: { sessionId: '', provider: '', relay: '', turns: 2, inputTokens: 300, outputTokens: 100, costUsd: 4.2 },
      sessionsStarted: 0,
      budgets: [
        {
          sessionId: agent.session.id,
          setBy: 'person',
          limits: { costUsd: 5 },
          startedAt: new Date('2026-12-07T10:00:00.000Z'),
          state: 'active',
          level: 'warn',
          meters: [{ name: 'cost_usd', used: 4.2, limit: 5, utilization: 0.84 }],
          remaining: { costUsd: 0.8 },
          cardId: 'card_1',
        },
      ],
      remoteSessions: [],
    };
    const { body } = await agent.call({ action: 'usage', relay: 'this', tree: true });
    expect(body.summary).toMatch(/; tree spent US\$4.2 and 400 tokens in 2 turns$/);
    expect(body.tree).toMatchObject({
      rows: [{ session: agent.session.id, relay: 'desk', provider: 'openai', costUsd: 4.2 }],
      totals: { turns: 2, costUsd: 4.2 },
    });
    expect(body.budgetNote).toBe(
      "The budget over this conversation's tree is at 80 % or more (cost_usd 4.2 of 5); at 100 % no new turn starts in the tree until the user raises it.",
    );
    // The same note on a prompt's result.
    const sent = await agent.call({ action: 'create_session', relay: 'this', text: 'reply hi' });
    expect(sent.body.budgetNote).toBe(body.budgetNote);
  });
});

describe('across a pairing', () => {
  function pairBuildBox(agent: TestAgent): void {
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
  }

  /** A budget over the agent's conversation, whose tree started far-1 on build-box; build-box reports US$2 there. */
  function spentOnBuildBox(agent: TestAgent): void {
    gateway.owners.treeUsage = {
      sessionId: agent.session.id,
      rows: [],
      totals: undefined,
      sessionsStarted: 1,
      budgets: [
        {
          sessionId: agent.session.id,
          setBy: 'person',
          limits: { costUsd: 5 },
          startedAt: new Date('2026-12-07T10:00:00.000Z'),
          state: 'active',
          level: 'ok',
          meters: [],
          remaining: { costUsd: 3 },
          cardId: '',
        },
      ],
      remoteSessions: [{ startedBySessionId: agent.session.id, relay: 'build-box', sessionId: 'far-1' }],
    };
    gateway.owners.treeSpent = {
      session: 'far-1',
      sessionsStarted: 0,
      totals: {},
      rows: [{ session: 'far-1', provider: 'openai', turns: 2, inputTokens: 200, outputTokens: 0, costUsd: 2 }],
    };
  }

  it('carries the tightest of the agent’s budget and what the tree has left, and notes what the relay reports back', async () => {
    const agent = await newAgent();
    pairBuildBox(agent);
    gateway.owners.carried = { costUsd: 3, sessions: 2 };
    gateway.owners.treeSpent = {
      session: 'remote-1',
      sessionsStarted: 1,
      totals: {},
      rows: [{ session: 'far-1', provider: 'openai', turns: 1, inputTokens: 100, outputTokens: 0, costUsd: 1 }],
    };
    const { body } = await agent.call({ action: 'create_session', relay: 'build-box', text: 'reply hi', budget: { cost_usd: 5, minutes: 30 } });
    expect(body).toMatchObject({ ok: true, relay: 'build-box', session: 'remote-1' });
    const sent = gateway.owners.forwarded.filter((call) => !call.dryRun).map((call) => JSON.parse(call.argumentsJson).budget);
    expect(sent).toEqual([{ cost_usd: 3, minutes: 30, sessions: 2 }]);
    expect(budgetCalls()).toEqual([
      { method: 'checkTreeBudget', request: { userId: 'u1', sessionId: agent.session.id, startsSession: true } },
      {
        method: 'noteRemoteTreeSpend',
        request: {
          userId: 'u1',
          sessionId: agent.session.id,
          relay: 'build-box',
          remoteSessionId: 'remote-1',
          rows: [{ sessionId: 'far-1', provider: 'openai', relay: 'build-box', turns: 1, inputTokens: 100, outputTokens: 0, costUsd: 1 }],
          sessionsStarted: 1,
        },
      },
    ]);
  });

  it('asks the paired relay for its part of the tree before it checks, and carries the budget only into the tree', async () => {
    const agent = await newAgent();
    pairBuildBox(agent);
    gateway.owners.carried = { costUsd: 3 };
    spentOnBuildBox(agent);
    const calls = () => gateway.owners.forwarded.filter((call) => !call.dryRun).map((call) => ({ action: call.action, ...JSON.parse(call.argumentsJson) }));

    // Into the session the tree started there: what it spent there since is asked for first, then the budget goes.
    expect((await agent.call({ action: 'send', relay: 'build-box', session: 'far-1', text: 'reply hi' })).body).toMatchObject({ ok: true });
    expect(calls()).toEqual([
      { action: 'usage', relay: 'this', tree: true, session: 'far-1' },
      expect.objectContaining({ action: 'send', session: 'far-1', budget: { cost_usd: 3 } }),
    ]);
    expect(budgetCalls().map((call) => call.method)).toEqual(['noteRemoteTreeSpend', 'checkTreeBudget', 'noteRemoteTreeSpend']);
    expect(budgetCalls()[0]!.request).toMatchObject({ sessionId: agent.session.id, relay: 'build-box', remoteSessionId: 'far-1', rows: [{ costUsd: 2 }] });

    // Into a session the tree did not start there: no budget goes with it, and the agent's own is refused.
    gateway.owners.forwarded.length = 0;
    expect((await agent.call({ action: 'send', relay: 'build-box', session: 'theirs-1', text: 'reply hi' })).body).toMatchObject({ ok: true });
    expect(calls().map((call) => [call.action, call.budget])).toEqual([
      ['usage', undefined],
      ['send', undefined],
    ]);
    gateway.owners.forwarded.length = 0;
    const refused = await agent.call({ action: 'send', relay: 'build-box', session: 'theirs-1', text: 'reply hi', budget: { cost_usd: 1 } });
    expect(refused.body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_INVALID_INPUT' });
    expect(calls().map((call) => call.action)).toEqual(['usage']);
  });

  it('answers a paired relay’s usage with tree and session with what that session’s tree spent here, at read level', async () => {
    const { session } = gateway.owners.addAgentSession('u1', { title: 'Started from lab' });
    gateway.owners.treeUsage = {
      sessionId: session.id,
      rows: [{ sessionId: session.id, provider: 'openai', relay: 'desk', turns: 3, inputTokens: 300, outputTokens: 0, costUsd: 3 }],
      totals: { sessionId: '', provider: '', relay: '', turns: 3, inputTokens: 300, outputTokens: 0, costUsd: 3 },
      sessionsStarted: 1,
      budgets: [],
      remoteSessions: [],
    };
    const asked = async (level: AgentLevel) => {
      const token = `t-lab-${level}`;
      gateway.owners.relayTokens.set(token, { relayName: 'lab', userId: 'u1', acceptPrompts: false, level });
      const response = await fetch(`${gateway.url}/relay/v1/tool`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ action: 'usage', arguments: { relay: 'this', tree: true, session: session.id } }),
      });
      return (await response.json()) as any;
    };
    expect((await asked(AgentLevel.AGENT_LEVEL_READ)).treeSpent).toEqual({
      session: session.id,
      sessionsStarted: 1,
      totals: { turns: 3, inputTokens: 300, outputTokens: 0, costUsd: 3 },
      rows: [{ session: session.id, provider: 'openai', relay: 'desk', turns: 3, inputTokens: 300, outputTokens: 0, costUsd: 3 }],
    });
    // Read only as lab's: the session service answers only for a session lab's agents started here.
    expect(gateway.owners.treeReads.filter((read) => read.method === 'getTreeUsage').map((read) => read.request)).toEqual([
      { userId: 'u1', sessionId: session.id, startedByRelay: 'lab' },
    ]);
    const refused = await asked(AgentLevel.AGENT_LEVEL_OFF);
    expect(refused).toMatchObject({ ok: false, code: 'REMOTE_RELAY_PERMISSION' });
    expect(refused.treeSpent).toBeUndefined();
  });

  it('asks build-box for the tree’s part there before a prompt of the tree here, which the session service checks', async () => {
    const agent = await newAgent();
    pairBuildBox(agent);
    spentOnBuildBox(agent);
    const { session: child } = gateway.owners.addAgentSession('u1', { title: 'Child', startedBySessionId: agent.session.id });
    gateway.owners.calls.splice(0);
    expect((await agent.call({ action: 'send', relay: 'this', session: child.id, text: 'reply hi', wait_seconds: 0 })).body).toMatchObject({ ok: true });
    expect(gateway.owners.forwarded.map((call) => [call.action, JSON.parse(call.argumentsJson).session])).toEqual([['usage', 'far-1']]);
    const order = gateway.owners.calls.map((call) => call.method).filter((method) => ['noteRemoteTreeSpend', 'sendMessage'].includes(method));
    expect(order).toEqual(['noteRemoteTreeSpend', 'sendMessage', 'sendMessage']);
  });

  it('asks no paired relay, and reads only the budgets over the tree, for a prompt of a tree without a budget', async () => {
    const agent = await newAgent();
    pairBuildBox(agent);
    spentOnBuildBox(agent);
    gateway.owners.treeUsage = { ...gateway.owners.treeUsage!, budgets: [] };
    const { session: child } = gateway.owners.addAgentSession('u1', { title: 'Child', startedBySessionId: agent.session.id });
    gateway.owners.treeReads.splice(0);
    expect((await agent.call({ action: 'send', relay: 'this', session: child.id, text: 'reply hi', wait_seconds: 0 })).body).toMatchObject({ ok: true });
    expect(gateway.owners.forwarded).toEqual([]);
    // Then the result's budget note reads only the budgets over the caller's tree.
    expect(gateway.owners.treeReads).toEqual([
      { method: 'getBudgetedRemoteSessions', request: { userId: 'u1', sessionId: child.id } },
      { method: 'getTreeUsage', request: { userId: 'u1', sessionId: agent.session.id, budgetsOnly: true } },
    ]);
  });

  it('carries nothing for a tree without a budget', async () => {
    const agent = await newAgent();
    pairBuildBox(agent);
    expect((await agent.call({ action: 'send', relay: 'build-box', session: 's1', text: 'reply hi' })).body).toMatchObject({ ok: true });
    expect(gateway.owners.forwarded.map((call) => JSON.parse(call.argumentsJson).budget)).toEqual([undefined]);
    expect(budgetCalls().map((call) => call.method)).toEqual(['checkTreeBudget']);
  });

  it('refuses a prompt from a tree its budget holds before anything goes to the paired relay', async () => {
    const agent = await newAgent();
    pairBuildBox(agent);
    gateway.owners.refusals.set('checkTreeBudget', new AppError('REMOTE_RELAY_BUDGET_REACHED', 'resource_exhausted', 'The budget of this tree is reached.'));
    const { body } = await agent.call({ action: 'send', relay: 'build-box', session: 's1', text: 'reply hi' });
    expect(body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_BUDGET_REACHED' });
    expect(gateway.owners.forwarded).toEqual([]);
  });
});
