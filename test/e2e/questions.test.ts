// Issue 6 end to end: asks (ask → the user answers in the Inbox → list_questions shows the answer and
// question_answered is published), answer_question on a script session's ask_user card, the loop guard between
// two script sessions prompting each other, and a second user who can neither see nor touch the first one's things.
// Agents call relay_tool through the gateway's MCP endpoint with their own tokens; the test plays the users.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { callUnary } from '@relay/rpc';
import { startRelay, type Relay } from '../harness/relay.ts';

let relay: Relay;
const agents: Client[] = [];

const tool = (args: Record<string, unknown>) => `relay_tool ${JSON.stringify(args)}`;

async function call(agent: Client, args: Record<string, unknown>): Promise<any> {
  const result = await agent.callTool({ name: 'relay_tool', arguments: args });
  return JSON.parse((result.content as { text: string }[])[0]!.text);
}

/** An external session of the current user with its agent's MCP client. */
async function externalAgent(title: string): Promise<{ id: string; agent: Client }> {
  const external = await relay.createExternalSession(title);
  const agent = await relay.connectAgent(external.token);
  agents.push(agent);
  return { id: external.id, agent };
}

async function startScriptSession(title: string, text: string): Promise<{ id: string; messageId: string }> {
  const created = await relay.api('POST', '/api/v1/sessions', { provider: 'script', title, text });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { id: created.body.session.id, messageId: created.body.message_id };
}

async function finish(sessionId: string, messageId: string): Promise<any> {
  for (;;) {
    const result = await relay.api('GET', `/api/v1/sessions/${sessionId}/wait?message_id=${messageId}&wait_seconds=120`);
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    if (!['queued', 'running', 'waiting_for_answer'].includes(result.body.status)) return result.body;
  }
}

/** The first pending card in a session, once one shows. */
async function pendingCard(sessionId: string): Promise<any> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const { body } = await relay.api('GET', `/api/v1/cards?session=${sessionId}&pending=1`);
    if (body.cards[0]) return body.cards[0];
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no card showed in ${sessionId}`);
}

/** Runs `work` with the user API and external sessions acting as the user of `token`. */
async function asUser<T>(token: string, work: () => Promise<T>): Promise<T> {
  const own = relay.userToken;
  relay.userToken = token;
  try {
    return await work();
  } finally {
    relay.userToken = own;
  }
}

async function questionAnsweredEvents(): Promise<any[]> {
  const db = new pg.Client({ connectionString: relay.databaseUrls.question });
  await db.connect();
  try {
    const { rows } = await db.query(`SELECT payload FROM outbox WHERE subject = 'relay.question.v1.question_answered' ORDER BY created_at`);
    return rows.map((row) => row.payload);
  } finally {
    await db.end();
  }
}

beforeAll(async () => {
  relay = await startRelay({ name: 'desk' });
});

afterAll(async () => {
  for (const agent of agents) await agent.close().catch(() => undefined);
  await relay?.stop();
});

describe('asks', () => {
  let asker: { id: string; agent: Client };

  beforeAll(async () => {
    asker = await externalAgent('Asker');
  });

  it('an agent asks and goes on; the user answers in the Inbox; list_questions shows the answer; question_answered is published', async () => {
    const asked = await call(asker.agent, {
      action: 'ask',
      question: 'Ship the migration tonight or wait for the review?',
      options: ['Tonight', 'Wait'],
      recommendation: 'Wait',
      detail: 'The review covers the index change; the rest is tested.',
    });
    expect(asked).toMatchObject({ ok: true, status: 'pending', question_id: expect.stringMatching(/^ask_/) });
    expect(asked.summary).toBe(`ask → desk: question ${asked.question_id} pending`);

    const read = await call(asker.agent, { action: 'read_session', relay: 'this', session: asker.id });
    expect(read.pendingQuestions).toEqual([{ id: asked.question_id, kind: 'ask', question: 'Ship the migration tonight or wait for the review?', options: ['Tonight', 'Wait'] }]);

    const inbox = await relay.api('GET', '/api/v1/inbox');
    expect(inbox.body.asks).toEqual([expect.objectContaining({ id: asked.question_id, sessionId: asker.id, status: 'pending', recommendation: 'Wait' })]);

    const answered = await relay.api('POST', `/api/v1/asks/${asked.question_id}`, { decision: 'answer', choice: 'Wait', answer: 'after the review' });
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);
    expect(answered.body.ask).toMatchObject({ status: 'answered', choice: 'Wait', answer: 'after the review', via: 'desk' });

    const listed = await call(asker.agent, { action: 'list_questions' });
    expect(listed).toMatchObject({ ok: true, relay: 'desk' });
    expect(listed.questions).toEqual([expect.objectContaining({ question_id: asked.question_id, status: 'answered', choice: 'Wait', answer: 'after the review', via: 'desk' })]);
    expect((await relay.api('GET', '/api/v1/inbox')).body.asks).toEqual([]);

    // The wake-up itself is the subscription service's; the event it is made from is published here.
    expect(await questionAnsweredEvents()).toEqual([
      expect.objectContaining({ questionId: asked.question_id, askingSessionId: asker.id, choice: 'Wait', answer: 'after the review', via: 'desk' }),
    ]);
  });

  it('wakes the asking conversation with question_answered, with no subscription', async () => {
    const script = await startScriptSession('Script asker', `${tool({ action: 'ask', question: 'Wake me?', options: ['Yes', 'No'] })}\nreply {{result.question_id}}`);
    const questionId = (await finish(script.id, script.messageId)).reply.text;
    expect(questionId).toMatch(/^ask_/);
    expect((await relay.api('POST', `/api/v1/asks/${questionId}`, { decision: 'answer', choice: 'Yes' })).status).toBe(200);
    await expect
      .poll(
        async () => {
          const { body } = await relay.api('GET', `/api/v1/sessions/${script.id}?last=20`);
          return body.messages.filter((m: { role: string }) => m.role === 'event').map((m: { text: string }) => m.text);
        },
        { timeout: 30_000, interval: 200 },
      )
      .toEqual([expect.stringMatching(new RegExp(`question_answered: question ${questionId} answered \\(chose "Yes"; via desk\\)`))]);
  });

  it('dismissing publishes question_answered with dismissed; a decided ask is not decided again', async () => {
    const asked = await call(asker.agent, { action: 'ask', question: 'Rename the flag?' });
    const dismissed = await relay.api('POST', `/api/v1/asks/${asked.question_id}`, { decision: 'dismiss' });
    expect(dismissed.body.ask).toMatchObject({ status: 'dismissed' });
    const again = await relay.api('POST', `/api/v1/asks/${asked.question_id}`, { decision: 'answer', answer: 'yes' });
    expect(again.status).toBe(400);
    expect((await questionAnsweredEvents()).at(-1)).toMatchObject({ questionId: asked.question_id, dismissed: true });
  });

  it('withdraw takes back a pending ask, only in the conversation that asked', async () => {
    const asked = await call(asker.agent, { action: 'ask', question: 'Which port?' });
    const other = await externalAgent('Other conversation');
    expect(await call(other.agent, { action: 'withdraw', question_id: asked.question_id })).toMatchObject({ ok: false, code: 'REMOTE_RELAY_FORBIDDEN' });
    expect(await call(asker.agent, { action: 'withdraw', question_id: asked.question_id })).toMatchObject({ ok: true, status: 'withdrawn' });
    expect(await call(asker.agent, { action: 'withdraw', question_id: asked.question_id })).toMatchObject({ ok: false, code: 'REMOTE_RELAY_INVALID_INPUT' });
    const listed = await call(asker.agent, { action: 'list_questions' });
    expect(listed.questions.find((q: any) => q.question_id === asked.question_id)).toMatchObject({ status: 'withdrawn' });
  });

  it('answer_question refuses an ask before anyone is called', async () => {
    const asked = await call(asker.agent, { action: 'ask', question: 'Bump the version?' });
    const other = await externalAgent('Would-be answerer');
    expect(await call(other.agent, { action: 'answer_question', relay: 'this', question_id: asked.question_id, choices: ['Yes'] })).toMatchObject({
      ok: false,
      code: 'REMOTE_RELAY_FORBIDDEN',
    });
    const listed = await call(asker.agent, { action: 'list_questions' });
    expect(listed.questions.find((q: any) => q.question_id === asked.question_id)).toMatchObject({ status: 'pending' });
  });

  it('ask with session asks on behalf of another session: it shows there and in list_questions with session', async () => {
    const about = await externalAgent('Asked about');
    const asked = await call(asker.agent, { action: 'ask', session: about.id, question: 'Merge the branch of this session?' });
    expect(asked).toMatchObject({ ok: true, status: 'pending' });
    const read = await call(asker.agent, { action: 'read_session', relay: 'this', session: about.id });
    expect(read.pendingQuestions).toEqual([expect.objectContaining({ id: asked.question_id, kind: 'ask' })]);
    const viaApi = await relay.api('GET', `/api/v1/sessions/${about.id}`);
    expect(viaApi.body.pendingQuestions).toEqual([expect.objectContaining({ id: asked.question_id, kind: 'ask' })]);
    const listed = await call(asker.agent, { action: 'list_questions', session: about.id });
    expect(listed.questions).toEqual([expect.objectContaining({ question_id: asked.question_id, session: about.id, askedBy: asker.id })]);
  });

  it('refuses the 21st pending ask of a conversation with REMOTE_RELAY_QUESTION_LIMIT and stores nothing', async () => {
    const limited = await externalAgent('Many questions');
    for (let i = 1; i <= 20; i++) expect(await call(limited.agent, { action: 'ask', question: `Question ${i}?` })).toMatchObject({ ok: true });
    expect(await call(limited.agent, { action: 'ask', question: 'One too many?' })).toMatchObject({ ok: false, code: 'REMOTE_RELAY_QUESTION_LIMIT' });
    const listed = await call(limited.agent, { action: 'list_questions' });
    expect(listed.questions).toHaveLength(20);
  });
});

describe('answer_question', () => {
  it("answers a script session's ask_user card from another session; the blocked turn goes on with the answer", async () => {
    const blocked = await startScriptSession('Blocked', 'ask_user Merge now? | Merge | Wait\nreply got {{answer}}');
    const card = await pendingCard(blocked.id);
    expect(card).toMatchObject({ kind: 'question', options: ['Merge', 'Wait'] });
    const answerer = await externalAgent('Answerer');
    expect(await call(answerer.agent, { action: 'answer_question', relay: 'this', question_id: card.id })).toMatchObject({
      ok: false,
      code: 'REMOTE_RELAY_INVALID_INPUT',
    });
    const answered = await call(answerer.agent, { action: 'answer_question', relay: 'this', question_id: card.id, choices: ['Merge'] });
    expect(answered).toMatchObject({ ok: true, session: blocked.id, question_id: card.id, status: 'answered', choices: ['Merge'] });
    const turn = await finish(blocked.id, blocked.messageId);
    expect(turn.status).toBe('done');
    expect(turn.reply.text).toContain('Merge');
  });
});

describe('the loop guard', () => {
  it('stops two script sessions prompting each other at 30 with a card; Deny ends it and nothing runs away', async () => {
    const a = await startScriptSession('Ping', 'reply ready');
    const b = await startScriptSession('Pong', 'reply ready');
    await finish(a.id, a.messageId);
    await finish(b.id, b.messageId);

    // Each prompt A sends makes B prompt A back.
    const back = tool({ action: 'send', relay: 'this', session: a.id, text: 'reply ping', wait_seconds: 0 });
    const sends = Array.from({ length: 31 }, () => tool({ action: 'send', relay: 'this', session: b.id, text: back, wait_seconds: 0 }));
    const sent = await relay.api('POST', `/api/v1/sessions/${a.id}/messages`, { text: [...sends, 'reply {{result.code}}'].join('\n') });
    expect(sent.status).toBe(201);

    const card = await pendingCard(a.id);
    expect(card.kind).toBe('approval');
    expect(`${card.title} ${card.lines.join(' ')}`).toContain('30 prompts');
    expect((await relay.api('POST', `/api/v1/cards/${card.id}`, { decision: 'deny' })).status).toBe(200);
    const turn = await finish(a.id, sent.body.message_id);
    expect(turn.reply.text).toBe('REMOTE_RELAY_LOOP_GUARD');

    // Everything settles: B got exactly 30 prompts from A, A got B's 30 answers, and nothing is left running.
    const settled = async (id: string) => {
      for (;;) {
        const { body } = await relay.api('GET', `/api/v1/sessions/${id}?last=100`);
        if (body.session.state === 'idle') return body;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    const readB = await settled(b.id);
    const readA = await settled(a.id);
    const prompts = (read: any) => read.messages.filter((m: any) => m.role === 'agent');
    expect(prompts(readB)).toHaveLength(30);
    expect(prompts(readA)).toHaveLength(30);
    const again = await relay.api('GET', `/api/v1/sessions/${b.id}?last=100`);
    expect(again.body.messages).toHaveLength(readB.messages.length);
    expect((await relay.api('GET', `/api/v1/cards?session=${a.id}&pending=1`)).body.cards).toEqual([]);
    expect((await relay.api('GET', `/api/v1/cards?session=${b.id}&pending=1`)).body.cards).toEqual([]);
  });
});

describe('isolation between users', () => {
  it("a second user and that user's agents see and touch none of the first user's sessions, asks and cards", async () => {
    // The first user's things: a session with a pending card, an ask about it.
    const mine = await startScriptSession('Mine', 'ask_user Keep going? | Yes | No\nreply {{answer}}');
    const card = await pendingCard(mine.id);
    const asker = await externalAgent('My asker');
    const ask = await call(asker.agent, { action: 'ask', session: mine.id, question: 'Mine to answer?' });
    expect(ask.ok).toBe(true);

    const second = await callUnary<{ name: string }, { userId: string; token: string }>(relay.sessionClient, 'createUser', { name: 'second user' });
    await asUser(second.token, async () => {
      const theirs = await externalAgent('Their agent');
      const notFound = { ok: false, code: 'REMOTE_RELAY_NOT_FOUND' };
      const calls: Record<string, unknown>[] = [
        { action: 'read_session', relay: 'this', session: mine.id },
        { action: 'send', relay: 'this', session: mine.id, text: 'reply hijacked', wait_seconds: 0 },
        { action: 'wait', relay: 'this', session: mine.id, message_id: mine.messageId, wait_seconds: 0 },
        { action: 'update_session', relay: 'this', session: mine.id, title: 'Hijacked' },
        { action: 'stop', relay: 'this', session: mine.id },
        { action: 'archive', relay: 'this', session: mine.id },
        { action: 'answer_question', relay: 'this', question_id: card.id, choices: ['No'] },
        { action: 'withdraw', question_id: ask.question_id },
        { action: 'list_questions', session: mine.id },
        { action: 'ask', session: mine.id, question: 'Can I see this?' },
        { action: 'subscribe', sessions: [mine.id] },
        { action: 'list_subscriptions', watcher: mine.id },
        { action: 'transfer_subscriptions', from: mine.id },
        { action: 'schedule', session: mine.id, title: 'Later', text: 'reply later', at: '2030-01-01T00:00:00Z' },
      ];
      for (const args of calls) expect(await call(theirs.agent, args), JSON.stringify(args)).toMatchObject(notFound);

      const listed = await call(theirs.agent, { action: 'list_sessions', relay: 'this', scope: 'all' });
      expect(listed.sessions.map((s: { id: string }) => s.id)).not.toContain(mine.id);

      const http: [string, string, unknown?][] = [
        ['GET', `/api/v1/sessions/${mine.id}`],
        ['POST', `/api/v1/sessions/${mine.id}/messages`, { text: 'reply hijacked' }],
        ['PATCH', `/api/v1/sessions/${mine.id}`, { mode: 'plan' }],
        ['GET', `/api/v1/sessions/${mine.id}/wait?message_id=${mine.messageId}&wait_seconds=0`],
        ['POST', `/api/v1/cards/${card.id}`, { decision: 'answer', choices: ['No'] }],
        ['POST', `/api/v1/asks/${ask.question_id}`, { decision: 'dismiss' }],
      ];
      for (const [method, path, body] of http) {
        const answer = await relay.api(method, path, body);
        expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBe(404);
      }
      const inbox = await relay.api('GET', '/api/v1/inbox');
      expect(inbox.body).toEqual({ asks: [], cards: [] });
      expect((await relay.api('GET', `/api/v1/cards?session=${mine.id}`)).body.cards).toEqual([]);
      expect((await relay.api('GET', `/api/v1/asks?session=${mine.id}`)).body.asks).toEqual([]);
      expect((await relay.api('GET', '/api/v1/sessions?scope=all')).body.sessions.map((s: { id: string }) => s.id)).not.toContain(mine.id);
    });

    // Nothing of the first user's changed.
    expect((await pendingCard(mine.id)).id).toBe(card.id);
    const read = await relay.api('GET', `/api/v1/sessions/${mine.id}`);
    expect(read.body.session.title).toBe('Mine');
    expect(read.body.session.archived ?? false).toBe(false);
    expect((await relay.api('GET', '/api/v1/inbox')).body.asks.map((a: { id: string }) => a.id)).toContain(ask.question_id);
  });
});
