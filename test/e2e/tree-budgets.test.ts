// Issue 45 end to end: a budget over a delegation tree that spans two paired relays (each its own processes,
// databases and nats-server). A `script` conversation on desk starts three sessions (two on desk, one on build-box),
// and they start nine sessions on the fake OpenAI-compatible endpoint, whose tokens each relay prices at US$1 a turn
// (its admin's price table). The tree hits its money budget (the turn that must not start does not: its session is
// never made and the endpoint never hears its prompt), the owner's card raises it; build-box enforces what desk
// carried with the call, refusing the session past the count there, and reports back what the tree spent there; desk
// then refuses its twelfth session until the owner's card raises the count. An agent's answer on the budget's card
// is refused and changes nothing. The tree's usage, split by session, provider and relay, equals the two ledgers'
// sums. A session started on build-box that goes on spending there after the call returned is counted when desk reads
// the tree (it asks build-box), which holds the tree on desk. Last, a runaway model on another tree is stopped
// mid-turn once the tree is past its money by more than one finished turn.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunk, DONE, startFakeOpenAiApi, usageChunk, type FakeOpenAiApi } from '../harness/fake-openai-api.ts';
import { startRelay, type Relay } from '../harness/relay.ts';
import { runRelayCli } from '../harness/relay-cli.ts';
import { decideCard, finish, relayToolResult, scriptSession } from '../harness/script-turns.ts';
import { until } from '../harness/until.ts';

let desk: Relay;
let buildBox: Relay;
let api: FakeOpenAiApi;

const tool = (args: Record<string, unknown>) => `relay_tool ${JSON.stringify(args)}`;

/** A create_session step for a session on the fake endpoint whose first turn costs US$1 (its prompt names it). */
const openAiSession = (title: string) =>
  tool({ action: 'create_session', relay: 'this', provider: 'openai', model: 'fake-1', title, text: `hi ${title}`, wait_seconds: 120 });

/**
 * The fake model: one short answer, 100 prompt tokens (US$1 at the prices below); asked to "loop", it calls
 * list_sessions again and again (US$1 an answer), as a runaway agent would.
 */
function answer(body: any): string[] {
  if (body.messages[0]?.content === 'loop') {
    const call = {
      index: 0,
      id: `call_${body.messages.length}`,
      type: 'function',
      function: { name: 'relay_tool', arguments: '{"action":"list_sessions","relay":"this"}' },
    };
    return [chunk({ role: 'assistant', content: null, tool_calls: [call] }), chunk({}, 'tool_calls'), usageChunk(100, 0), DONE];
  }
  return [chunk({ role: 'assistant', content: 'hello' }), chunk({}, 'stop'), usageChunk(100, 0), DONE];
}

/** The prompts the endpoint was asked about: `hi <title>` for each session's turn. */
const prompted = () => api.requests.map((request) => request.body.messages.at(-1)?.content as string);

const OPENAI = (url: string) => ({
  RELAY_AGENT_SESSIONS: 'on',
  RELAY_OPENAI_BASE_URL: url,
  RELAY_OPENAI_API_KEY: 'sk-test-key',
  // The admin's price table for a provider that reports tokens only: US$10,000 per million prompt tokens.
  RELAY_OPENAI_PRICES: JSON.stringify({ 'fake-1': { inputUsdPerMTok: 10_000, outputUsdPerMTok: 0 } }),
});

/** Sends the user's message to a conversation and returns its id (the turn runs on). */
async function send(relay: Relay, sessionId: string, text: string): Promise<string> {
  const sent = await relay.api('POST', `/api/v1/sessions/${sessionId}/messages`, { text });
  expect(sent.status, JSON.stringify(sent.body)).toBe(201);
  return sent.body.message_id;
}

/** Lets the owner's agent switch on a conversation start sessions itself (one level only otherwise). */
async function mayCreateSessions(relay: Relay, sessionId: string): Promise<void> {
  const set = await relay.api('PATCH', `/api/v1/sessions/${sessionId}`, { may_create_sessions: true });
  expect(set.status, JSON.stringify(set.body)).toBe(200);
}

/** The pending budget card of the conversation whose title starts with `title`. */
async function budgetCard(relay: Relay, sessionId: string, title: string): Promise<any> {
  return until(`a card "${title}…" in ${sessionId}`, async () => {
    const { body } = await relay.api('GET', `/api/v1/cards?session=${sessionId}&pending=1`);
    return (body.cards as any[] | undefined)?.find((card) => card.title.startsWith(title));
  });
}

/** What the relay's ledger (turn_usage) holds for these sessions. */
async function ledgerOf(relay: Relay, sessionIds: string[]): Promise<{ turns: number; costUsd: number }> {
  const client = new pg.Client({ connectionString: relay.databaseUrls.session });
  await client.connect();
  try {
    const { rows } = await client.query(
      'SELECT COUNT(*)::int AS turns, COALESCE(SUM(cost_usd), 0)::float8 AS cost FROM turn_usage WHERE session_id = ANY($1)',
      [sessionIds],
    );
    return { turns: rows[0].turns, costUsd: rows[0].cost };
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  api = await startFakeOpenAiApi({ answer, models: ['fake-1'] });
  // One after the other: two relays' processes starting at once starve each other on a small machine.
  desk = await startRelay({ name: 'desk', env: OPENAI(api.url), readyTimeoutMs: 240_000 });
  buildBox = await startRelay({ name: 'build-box', env: OPENAI(api.url), readyTimeoutMs: 240_000 });
  const code = await buildBox.api('POST', '/api/v1/pairing-codes');
  const paired = await desk.api('POST', '/api/v1/pairings', { url: buildBox.gatewayUrl, code: code.body.code });
  expect(paired.status, JSON.stringify(paired.body)).toBe(201);
}, 600_000);

afterAll(async () => {
  await Promise.all([desk?.stop(), buildBox?.stop()]);
  await api?.close();
});

describe('a budget over a tree of 1 → 3 → 9 sessions on two relays', () => {
  let root: string;
  const children: Record<string, string> = {};

  it('the person sets it on the conversation; the conversation starts three sessions, one on the paired relay', async () => {
    const started = await scriptSession(desk, 'Root', 'reply ready');
    root = started.id;
    await finish(desk, root, started.messageId);
    const set = await desk.api('PUT', `/api/v1/sessions/${root}/budget`, { costUsd: 5, sessions: 11 });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.budgets).toEqual([
      expect.objectContaining({ session: root, setBy: 'person', state: 'active', limits: { costUsd: 5, tokens: null, minutes: null, sessions: 11 } }),
    ]);

    const steps = ['# build-box may take one'];
    for (const [title, relay] of [
      ['c1', 'this'],
      ['c2', 'this'],
      ['c3', 'build-box'],
    ] as const) {
      steps.push(
        tool({ action: 'create_session', relay, provider: 'script', title, text: 'reply ready', wait_seconds: 120 }),
        `reply ${title} {{result.session}}`,
      );
    }
    const messageId = await send(desk, root, steps.join('\n'));
    await decideCard(desk, root, 'allow');
    const turn = await finish(desk, root, messageId);
    for (const line of (turn.reply.text as string).split('\n')) {
      const [title, id] = line.split(' ');
      children[title!] = id!;
    }
    expect(Object.keys(children)).toEqual(['c1', 'c2', 'c3']);
    // build-box enforces what desk carried with the call: the money left and the sessions left (11 − 2).
    const far = await buildBox.api('GET', `/api/v1/sessions/${children.c3}/tree-usage`);
    expect(far.body.budgets).toEqual([expect.objectContaining({ setBy: 'relay', limits: { costUsd: 5, tokens: null, minutes: null, sessions: 9 } })]);
    await mayCreateSessions(desk, children.c1!);
    await mayCreateSessions(desk, children.c2!);
    await mayCreateSessions(buildBox, children.c3!);
  });

  it('tells the owner at 80 %, and at 100 % the next session is refused: its turn never runs', async () => {
    const first = await send(desk, children.c1!, [openAiSession('g1'), openAiSession('g2'), openAiSession('g3'), 'reply {{result.status}}'].join('\n'));
    await decideCard(desk, children.c1!, 'allow');
    expect((await finish(desk, children.c1!, first)).reply.text).toBe('done');

    const second = await send(desk, children.c2!, [openAiSession('g4'), openAiSession('g5'), openAiSession('g6'), 'reply {{result.code}}'].join('\n'));
    await decideCard(desk, children.c2!, 'allow');
    expect((await finish(desk, children.c2!, second)).reply.text).toBe('REMOTE_RELAY_BUDGET_REACHED');
    expect(prompted()).toEqual(['hi g1', 'hi g2', 'hi g3', 'hi g4', 'hi g5']);
    const sessions = (await desk.api('GET', '/api/v1/sessions?scope=all')).body.sessions.map((session: any) => session.title);
    expect(sessions).not.toContain('g6');

    expect((await budgetCard(desk, root, 'Budget 80 % used')).lines[0]).toBe('Used: US$4 of US$5 (80 %), 7 of 11 sessions (64 %)');
    const reached = await budgetCard(desk, root, 'Budget reached');
    expect(reached).toMatchObject({ kind: 'approval', title: 'Budget reached for "Root": no new turn starts in its tree' });
    // The tree is held: the person's own message to a session in it waits, queued.
    const held = await send(desk, children.c1!, 'reply still here');
    expect((await desk.api('GET', `/api/v1/sessions/${children.c1}/wait?message_id=${held}&wait_seconds=1`)).body.status).toBe('queued');

    // An agent cannot decide the budget's card: its answer_question is refused, and by effect the held turn stays
    // queued and the budget is as it was.
    const before = (await desk.api('GET', `/api/v1/sessions/${root}/tree-usage`)).body.budgets[0];
    for (const choice of [{ choices: ['Allow'] }, { answer: 'allow' }]) {
      const meddled = await relayToolResult(desk, { action: 'answer_question', relay: 'this', session: root, question_id: reached.id, ...choice }, 'Meddler');
      expect(meddled).toMatchObject({ ok: false, code: 'REMOTE_RELAY_FORBIDDEN' });
    }
    expect((await desk.api('GET', `/api/v1/sessions/${children.c1}/wait?message_id=${held}&wait_seconds=1`)).body.status).toBe('queued');
    expect((await desk.api('GET', `/api/v1/sessions/${root}/tree-usage`)).body.budgets[0]).toEqual(before);
    expect(before).toMatchObject({ state: 'reached', limits: { costUsd: 5 }, cardId: reached.id });
    expect((await budgetCard(desk, root, 'Budget reached')).id).toBe(reached.id);

    // The owner's Allow raises the money to what was used plus US$5: the held turn runs, and c2 starts g6.
    expect((await desk.api('POST', `/api/v1/cards/${reached.id}`, { decision: 'allow' })).status).toBe(200);
    expect((await finish(desk, children.c1!, held)).reply.text).toBe('still here');
    const again = await send(desk, children.c2!, [openAiSession('g6'), 'reply {{result.status}}'].join('\n'));
    expect((await finish(desk, children.c2!, again)).reply.text).toBe('done');
    const usage = await desk.api('GET', `/api/v1/sessions/${root}/tree-usage`);
    expect(usage.body.budgets[0]).toMatchObject({ state: 'active', limits: { costUsd: 10, sessions: 11 } });
  });

  it('build-box enforces the sessions desk carried across, and reports back what the tree spent there', async () => {
    // 9 of 11 started: the prompt to c3 carries 2 sessions and US$4; build-box refuses c3's third session itself.
    const far = [openAiSession('g7'), openAiSession('g8'), openAiSession('g9'), 'reply made'].join('\n');
    const messageId = await send(
      desk,
      root,
      [tool({ action: 'send', relay: 'build-box', session: children.c3, text: far, wait_seconds: 300 }), 'reply {{result.status}}'].join('\n'),
    );
    await decideCard(buildBox, children.c3!, 'allow');
    expect((await finish(desk, root, messageId)).reply.text).toBe('done');
    expect(prompted().slice(6)).toEqual(['hi g7', 'hi g8']);
    const farTree = await buildBox.api('GET', `/api/v1/sessions/${children.c3}/tree-usage`);
    expect(farTree.body).toMatchObject({
      sessionsStarted: 2,
      totals: { turns: 2, costUsd: 2 },
      budgets: [{ state: 'reached', limits: { costUsd: 4, sessions: 2 } }],
    });

    // desk counts it: US$8 and 11 sessions; its twelfth is refused until the owner's card raises the count.
    const tree = await desk.api('GET', `/api/v1/sessions/${root}/tree-usage`);
    expect(tree.body).toMatchObject({ sessionsStarted: 11, totals: { turns: 8, costUsd: 8 } });
    const twelfth = tool({ action: 'create_session', relay: 'this', provider: 'script', title: 'c4', text: 'reply ready', wait_seconds: 120 });
    const refused = await send(desk, root, [twelfth, 'reply {{result.code}}'].join('\n'));
    expect((await finish(desk, root, refused)).reply.text).toBe('REMOTE_RELAY_BUDGET_REACHED');
    const card = await budgetCard(desk, root, 'Budget reached');
    expect(card.lines[0]).toContain('11 of 11 sessions (100 %)');
    expect((await desk.api('POST', `/api/v1/cards/${card.id}`, { decision: 'allow' })).status).toBe(200);
    const allowed = await send(desk, root, [twelfth, 'reply {{result.status}}'].join('\n'));
    expect((await finish(desk, root, allowed)).reply.text).toBe('done');
    expect((await desk.api('GET', `/api/v1/sessions/${root}/tree-usage`)).body.budgets[0].limits).toMatchObject({ sessions: 22 });
  });

  it("shows the tree's usage by session, provider and relay, equal to the two ledgers' sums", async () => {
    const { body: tree } = await desk.api('GET', `/api/v1/sessions/${root}/tree-usage`);
    const rowsOf = (relay: string) => tree.rows.filter((row: any) => row.relay === relay);
    const here = rowsOf('desk');
    const there = rowsOf('build-box');
    expect(here.every((row: any) => row.provider === 'openai' && row.turns === 1 && row.costUsd === 1)).toBe(true);
    expect(here).toHaveLength(6);
    expect(there).toHaveLength(2);
    expect(
      await ledgerOf(
        desk,
        here.map((row: any) => row.session),
      ),
    ).toEqual({ turns: 6, costUsd: 6 });
    expect(
      await ledgerOf(
        buildBox,
        there.map((row: any) => row.session),
      ),
    ).toEqual({ turns: 2, costUsd: 2 });
    expect(tree.totals).toMatchObject({ turns: 8, costUsd: 8 });

    // The CLI shows the same.
    const cli = await runRelayCli(desk, desk.userToken, 'usage', '--tree', root, '--json');
    expect(cli.code, cli.stderr).toBe(0);
    expect(JSON.parse(cli.stdout)).toEqual(tree);
  });

  it('learns what a session it started on build-box spends there after the call returned, and holds the tree', async () => {
    const started = await scriptSession(desk, 'Far spender', 'reply ready');
    await finish(desk, started.id, started.messageId);
    expect((await desk.api('PUT', `/api/v1/sessions/${started.id}/budget`, { costUsd: 3 })).status).toBe(200);
    const create = tool({ action: 'create_session', relay: 'build-box', provider: 'openai', model: 'fake-1', title: 'Far', text: 'hi Far', wait_seconds: 120 });
    const messageId = await send(desk, started.id, [create, 'reply {{result.session}}'].join('\n'));
    await decideCard(desk, started.id, 'allow');
    const far = (await finish(desk, started.id, messageId)).reply.text as string;
    expect((await desk.api('GET', `/api/v1/sessions/${started.id}/tree-usage`)).body.totals).toMatchObject({ turns: 1, costUsd: 1 });

    // The session goes on spending on build-box with no call from desk: its person prompts it there twice.
    for (const text of ['hi again', 'hi once more']) {
      const prompt = await send(buildBox, far, text);
      expect((await finish(buildBox, far, prompt)).status).toBe('done');
    }
    // desk asks build-box for its part when it reads the tree: US$3 of US$3, as build-box's ledger holds it.
    const { body: tree } = await desk.api('GET', `/api/v1/sessions/${started.id}/tree-usage`);
    expect(tree.rows).toEqual([expect.objectContaining({ session: far, relay: 'build-box', provider: 'openai', turns: 3, costUsd: 3 })]);
    expect(await ledgerOf(buildBox, [far])).toEqual({ turns: 3, costUsd: 3 });
    expect(tree.budgets[0]).toMatchObject({ state: 'reached' });
    // The hold is in force on desk: the person's next message to the conversation waits, queued.
    const held = await send(desk, started.id, 'reply still here');
    expect((await desk.api('GET', `/api/v1/sessions/${started.id}/wait?message_id=${held}&wait_seconds=1`)).body.status).toBe('queued');
  });

  it('stops a running turn once its tree is past the money by more than one finished turn', async () => {
    const started = await scriptSession(desk, 'Runaway root', 'reply ready');
    await finish(desk, started.id, started.messageId);
    expect((await desk.api('PUT', `/api/v1/sessions/${started.id}/budget`, { costUsd: 3 })).status).toBe(200);
    const create = tool({ action: 'create_session', relay: 'this', provider: 'openai', model: 'fake-1', title: 'Runaway', text: 'loop', wait_seconds: 120 });
    const messageId = await send(desk, started.id, [create, 'reply {{result.status}}'].join('\n'));
    await decideCard(desk, started.id, 'allow');
    // Left alone the model would answer 25 times (the provider's bound on tool rounds): US$25. Every running turn of the
    // tree is stopped: the runaway's, and the conversation's own that waits for it.
    expect((await finish(desk, started.id, messageId)).status).toBe('stopped');
    const runaway = (await desk.api('GET', '/api/v1/sessions?scope=all')).body.sessions.find((session: { title: string }) => session.title === 'Runaway');
    const prompt = (await desk.api('GET', `/api/v1/sessions/${runaway.id}`)).body.messages[0];
    expect((await finish(desk, runaway.id, prompt.id)).status).toBe('stopped');
    const answers = api.requests.filter((request) => request.body.messages[0]?.content === 'loop').length;
    // Its use is in the ledger after each answer: at US$4 (past US$3 and no finished turn) it is stopped, the answer
    // in flight then at most added.
    expect(answers).toBeGreaterThanOrEqual(4);
    expect(answers).toBeLessThanOrEqual(5);
    const { body: tree } = await desk.api('GET', `/api/v1/sessions/${started.id}/tree-usage`);
    expect(tree.totals).toMatchObject({ turns: 1, costUsd: answers });
    expect(
      await ledgerOf(
        desk,
        tree.rows.map((row: any) => row.session),
      ),
    ).toEqual({ turns: 1, costUsd: answers });
    expect(tree.budgets[0]).toMatchObject({ state: 'reached' });
  });
});
