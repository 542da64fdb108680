// Issue 6 end to end: asks (ask → the user answers in the Inbox → list_questions shows the answer and
// question_answered wakes the asking conversation, and the session asked about), asks on another session's behalf
// and their approval card in the ask and plan modes, answer_question on a script session's ask_user card, asks ended
// when their session is archived, and each refusal of ask, withdraw, list_questions and answer_question. The loop
// guard and the isolation between users have their own files. Agents call relay_tool through the gateway's MCP
// endpoint with their own tokens; the test plays the user.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RelayClient } from '../harness/relay.ts';
import { sharedRelay } from '../harness/shared-relay.ts';
import { callTool as call, RelayUser, toolStep as tool, type Agent } from '../harness/relay-user.ts';

let relay: RelayClient;
let user: RelayUser;

async function questionAnsweredEvents(): Promise<any[]> {
  const db = new pg.Client({ connectionString: relay.databaseUrls.question });
  await db.connect();
  try {
    // This file's user's: the relay is shared with other files' users.
    const { rows } = await db.query(
      `SELECT payload FROM outbox WHERE subject = 'relay.question.v1.question_answered' AND payload->>'userId' = $1 ORDER BY created_at`,
      [relay.userId],
    );
    return rows.map((row) => row.payload);
  } finally {
    await db.end();
  }
}

/** The session's ask mark in the session service's database (0: no ask can be pending about it). */
async function askMark(sessionId: string): Promise<number> {
  const db = new pg.Client({ connectionString: relay.databaseUrls.session });
  await db.connect();
  try {
    return (await db.query('SELECT ask_mark FROM sessions WHERE id = $1', [sessionId])).rows[0].ask_mark;
  } finally {
    await db.end();
  }
}

/** The texts of the event rows written into a session. */
async function eventRows(sessionId: string): Promise<string[]> {
  const { body } = await user.api('GET', `/api/v1/sessions/${sessionId}?last=50`);
  return body.messages.filter((m: { role: string }) => m.role === 'event').map((m: { text: string }) => m.text);
}

/** Asks (as `asker`) and answers the ask's id. */
async function ask(asker: Agent, args: Record<string, unknown>): Promise<string> {
  const asked = await call(asker, { action: 'ask', ...args });
  expect(asked, JSON.stringify(asked)).toMatchObject({ ok: true, status: 'pending' });
  return asked.question_id;
}

beforeAll(async () => {
  relay = await sharedRelay();
  user = new RelayUser(relay, relay.userToken);
});

afterAll(async () => {
  await user?.close();
  await relay?.stop();
});

describe('asks', () => {
  let asker: Agent;

  beforeAll(async () => {
    asker = await user.externalAgent('Asker');
  });

  it('an agent asks and goes on; the user answers in the Inbox; list_questions shows the answer; question_answered is published', async () => {
    const asked = await call(asker, {
      action: 'ask',
      question: 'Ship the migration tonight or wait for the review?',
      options: ['Tonight', 'Wait'],
      recommendation: 'Wait',
      detail: 'The review covers the index change; the rest is tested.',
    });
    expect(asked).toMatchObject({ ok: true, status: 'pending', question_id: expect.stringMatching(/^ask_/) });
    expect(asked.summary).toBe(`ask → desk: question ${asked.question_id} pending`);

    const read = await call(asker, { action: 'read_session', relay: 'this', session: asker.id });
    expect(read.pendingQuestions).toEqual([
      { id: asked.question_id, kind: 'ask', question: 'Ship the migration tonight or wait for the review?', options: ['Tonight', 'Wait'] },
    ]);

    const inbox = await user.api('GET', '/api/v1/inbox');
    expect(inbox.body.asks).toEqual([expect.objectContaining({ id: asked.question_id, sessionId: asker.id, status: 'pending', recommendation: 'Wait' })]);

    const answered = await user.api('POST', `/api/v1/asks/${asked.question_id}`, { decision: 'answer', choice: 'Wait', answer: 'after the review' });
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);
    expect(answered.body.ask).toMatchObject({ status: 'answered', choice: 'Wait', answer: 'after the review', via: 'desk' });

    const listed = await call(asker, { action: 'list_questions' });
    expect(listed).toMatchObject({ ok: true, relay: 'desk' });
    expect(listed.questions).toEqual([
      expect.objectContaining({ question_id: asked.question_id, status: 'answered', choice: 'Wait', answer: 'after the review', via: 'desk' }),
    ]);
    expect((await user.api('GET', '/api/v1/inbox')).body.asks).toEqual([]);

    expect(await questionAnsweredEvents()).toEqual([
      expect.objectContaining({ questionId: asked.question_id, askingSessionId: asker.id, choice: 'Wait', answer: 'after the review', via: 'desk' }),
    ]);
  });

  it('read_session shows an ask until it is answered; the read after takes the mark off, and the next ask shows again', async () => {
    const about = await user.externalAgent('Marked');
    const readAsks = async () =>
      (await call(about, { action: 'read_session', relay: 'this', session: about.id })).pendingQuestions.map((q: { id: string }) => q.id);
    expect(await askMark(about.id)).toBe(0);

    const first = await ask(about, { question: 'Tag the release?' });
    expect(await askMark(about.id)).toBeGreaterThan(0);
    expect(await readAsks()).toEqual([first]);
    expect((await user.api('POST', `/api/v1/asks/${first}`, { decision: 'answer', answer: 'yes' })).status).toBe(200);
    expect(await readAsks()).toEqual([]);
    expect(await askMark(about.id)).toBe(0);

    const second = await ask(about, { question: 'Publish the notes?' });
    expect(await readAsks()).toEqual([second]);
    expect((await user.api('GET', `/api/v1/sessions/${about.id}`)).body.pendingQuestions).toEqual([expect.objectContaining({ id: second, kind: 'ask' })]);
  });

  it('wakes the asking conversation with question_answered, with no subscription', async () => {
    const script = await user.scriptSession(
      'Script asker',
      `${tool({ action: 'ask', question: 'Wake me?', options: ['Yes', 'No'] })}\nreply {{result.question_id}}`,
    );
    const questionId = (await user.finish(script.id, script.messageId)).reply.text;
    expect(questionId).toMatch(/^ask_/);
    expect((await user.api('POST', `/api/v1/asks/${questionId}`, { decision: 'answer', choice: 'Yes' })).status).toBe(200);
    await expect
      .poll(() => eventRows(script.id), { timeout: 30_000, interval: 200 })
      .toEqual([expect.stringMatching(new RegExp(`question_answered: question ${questionId} answered \\(chose "Yes"; via desk\\)`))]);
  });

  it('dismissing publishes question_answered with dismissed; a decided ask is not decided again', async () => {
    const questionId = await ask(asker, { question: 'Rename the flag?' });
    const dismissed = await user.api('POST', `/api/v1/asks/${questionId}`, { decision: 'dismiss' });
    expect(dismissed.body.ask).toMatchObject({ status: 'dismissed' });
    const again = await user.api('POST', `/api/v1/asks/${questionId}`, { decision: 'answer', answer: 'yes' });
    expect([again.status, again.body.code]).toEqual([400, 'REMOTE_RELAY_INVALID_INPUT']);
    expect((await questionAnsweredEvents()).at(-1)).toMatchObject({ questionId, dismissed: true });
  });

  it('withdraw takes back a pending ask, only in the conversation that asked', async () => {
    const questionId = await ask(asker, { question: 'Which port?' });
    const other = await user.externalAgent('Other conversation');
    expect(await call(other, { action: 'withdraw', question_id: questionId })).toMatchObject({ ok: false, code: 'REMOTE_RELAY_FORBIDDEN' });
    expect(await call(asker, { action: 'withdraw', question_id: questionId })).toMatchObject({ ok: true, status: 'withdrawn' });
    expect(await call(asker, { action: 'withdraw', question_id: questionId })).toMatchObject({ ok: false, code: 'REMOTE_RELAY_INVALID_INPUT' });
    const listed = await call(asker, { action: 'list_questions' });
    expect(listed.questions.find((q: any) => q.question_id === questionId)).toMatchObject({ status: 'withdrawn' });
    expect((await questionAnsweredEvents()).map((event) => event.questionId)).not.toContain(questionId);
  });

  it('ask with session asks on behalf of another session: it shows there and in list_questions with session', async () => {
    const about = await user.externalAgent('Asked about');
    const questionId = await ask(asker, { session: about.id, question: 'Merge the branch of this session?' });
    const read = await call(asker, { action: 'read_session', relay: 'this', session: about.id });
    expect(read.pendingQuestions).toEqual([expect.objectContaining({ id: questionId, kind: 'ask' })]);
    const viaApi = await user.api('GET', `/api/v1/sessions/${about.id}`);
    expect(viaApi.body.pendingQuestions).toEqual([expect.objectContaining({ id: questionId, kind: 'ask' })]);
    const listed = await call(asker, { action: 'list_questions', session: about.id });
    expect(listed.questions).toEqual([expect.objectContaining({ question_id: questionId, session: about.id, askedBy: asker.id })]);
  });

  it('the answer to an ask made on behalf of another session wakes both that session and the asking conversation', async () => {
    const about = await user.scriptSession('Asked-about script', 'reply ready');
    await user.finish(about.id, about.messageId);
    const script = await user.scriptSession(
      'Asking script',
      `${tool({ action: 'ask', session: about.id, question: 'Deploy it?', options: ['Yes', 'No'] })}\nreply {{result.question_id}}`,
    );
    const questionId = (await user.finish(script.id, script.messageId)).reply.text;
    expect(questionId).toMatch(/^ask_/);

    expect((await user.api('POST', `/api/v1/asks/${questionId}`, { decision: 'answer', choice: 'No', answer: 'not today' })).status).toBe(200);
    const row = expect.stringMatching(new RegExp(`question_answered: question ${questionId} answered`));
    await expect.poll(() => eventRows(script.id), { timeout: 30_000, interval: 200 }).toEqual([row]);
    await expect.poll(() => eventRows(about.id), { timeout: 30_000, interval: 200 }).toEqual([row]);
    expect((await questionAnsweredEvents()).at(-1)).toMatchObject({ questionId, askingSessionId: script.id, aboutSessionId: about.id, choice: 'No' });
  });

  it('an ask ends, and nobody is told, when the session it is about is archived', async () => {
    const about = await user.externalAgent('To be archived');
    const aboutIt = await ask(asker, { session: about.id, question: 'Still needed?' });
    const byIt = await ask(about, { question: 'Asked by the archived one?' });
    const eventsBefore = (await questionAnsweredEvents()).length;
    expect(await call(asker, { action: 'archive', relay: 'this', session: about.id })).toMatchObject({ ok: true });

    await expect
      .poll(async () => (await call(asker, { action: 'list_questions', session: about.id })).questions.map((q: any) => [q.question_id, q.status]), {
        timeout: 30_000,
        interval: 200,
      })
      .toEqual(
        expect.arrayContaining([
          [aboutIt, 'ended'],
          [byIt, 'ended'],
        ]),
      );
    const inbox = (await user.api('GET', '/api/v1/inbox')).body.asks.map((a: { id: string }) => a.id);
    expect(inbox).not.toContain(aboutIt);
    expect(inbox).not.toContain(byIt);
    expect(await questionAnsweredEvents()).toHaveLength(eventsBefore);
    // An ended ask is not answered any more.
    expect((await user.api('POST', `/api/v1/asks/${aboutIt}`, { decision: 'answer', answer: 'late' })).body.code).toBe('REMOTE_RELAY_INVALID_INPUT');
  });
});

describe('the approval card for ask with session in the ask and plan modes', () => {
  let about: Agent;

  beforeAll(async () => {
    about = await user.externalAgent('Asked about, carded');
  });

  const askAbout = (sessionId: string) =>
    `${tool({ action: 'ask', session: sessionId, question: 'Tag the release?', options: ['Tag', 'Hold'] })}\nreply {{result.ok}} {{result.code}} {{result.question_id}}`;
  const asksAbout = async (sessionId: string) => (await user.api('GET', `/api/v1/asks?session=${sessionId}`)).body.asks.map((a: { id: string }) => a.id);

  it.each(['ask', 'plan'])('in %s mode, Allow on the card lets the ask through', async (mode) => {
    const script = await user.scriptSession(`Asking in ${mode}`, askAbout(about.id), { mode });
    const card = await user.pendingCard(script.id);
    expect(card).toMatchObject({ kind: 'approval', title: `Ask a question on behalf of "Asked about, carded" on desk` });
    expect(card.lines).toEqual(['Question: "Tag the release?"', 'Options: Tag · Hold']);
    expect((await user.api('POST', `/api/v1/cards/${card.id}`, { decision: 'allow' })).status).toBe(200);
    const reply = (await user.finish(script.id, script.messageId)).reply.text as string;
    const [ok, , questionId] = reply.split(' ');
    expect(ok).toBe('true');
    expect(await asksAbout(about.id)).toContain(questionId);
  });

  it('Deny refuses with REMOTE_RELAY_PERMISSION and asks nothing', async () => {
    const before = await asksAbout(about.id);
    const script = await user.scriptSession('Denied asker', askAbout(about.id), { mode: 'ask' });
    const card = await user.pendingCard(script.id);
    expect((await user.api('POST', `/api/v1/cards/${card.id}`, { decision: 'deny' })).status).toBe(200);
    expect((await user.finish(script.id, script.messageId)).reply.text).toMatch(/^false REMOTE_RELAY_PERMISSION\s*$/);
    expect(await asksAbout(about.id)).toEqual(before);
  });

  it("an external asker's call is its running turn: the card shows in its session, and Deny asks nothing", async () => {
    const before = await asksAbout(about.id);
    const asker = await user.externalAgent('External asker in plan mode');
    expect((await user.api('PATCH', `/api/v1/sessions/${asker.id}`, { mode: 'plan' })).status).toBe(200);
    const asking = call(asker, { action: 'ask', session: about.id, question: 'Tag the release?' });
    const card = await user.pendingCard(asker.id);
    expect((await user.api('POST', `/api/v1/cards/${card.id}`, { decision: 'deny' })).status).toBe(200);
    expect(await asking).toMatchObject({ ok: false, code: 'REMOTE_RELAY_PERMISSION' });
    expect(await asksAbout(about.id)).toEqual(before);
    // An ask about its own conversation is not a write: no card, in any mode.
    expect(await call(asker, { action: 'ask', question: 'About myself?' })).toMatchObject({ ok: true, status: 'pending' });
  });

  it('in agent mode, ask with session asks at once without a card', async () => {
    const script = await user.scriptSession('Asking in agent mode', askAbout(about.id));
    const reply = (await user.finish(script.id, script.messageId)).reply.text as string;
    expect(reply).toMatch(/^true {2}ask_/);
    expect((await user.api('GET', `/api/v1/cards?session=${script.id}`)).body.cards).toEqual([]);
  });
});

describe('refusals of ask, withdraw and list_questions', () => {
  let agent: Agent;

  beforeAll(async () => {
    agent = await user.externalAgent('Refused');
  });

  it.each([
    ['ask without a question', { action: 'ask' }, 'REMOTE_RELAY_INVALID_INPUT'],
    ['ask with an empty question', { action: 'ask', question: '   ' }, 'REMOTE_RELAY_INVALID_INPUT'],
    ['ask with options that repeat', { action: 'ask', question: 'Which?', options: ['A', 'A'] }, 'REMOTE_RELAY_INVALID_INPUT'],
    ['ask with a question of more than 2,000 characters', { action: 'ask', question: 'x'.repeat(2_001) }, 'REMOTE_RELAY_INVALID_INPUT'],
    ['ask about a session that does not exist', { action: 'ask', session: '00000000-0000-4000-8000-000000000000', question: 'Who?' }, 'REMOTE_RELAY_NOT_FOUND'],
    ['ask on a relay that is not paired', { action: 'ask', relay: 'nowhere', question: 'Where?' }, 'REMOTE_RELAY_UNKNOWN_RELAY'],
    ['withdraw without question_id', { action: 'withdraw' }, 'REMOTE_RELAY_INVALID_INPUT'],
    ['withdraw of an ask that does not exist', { action: 'withdraw', question_id: 'ask_000000000000' }, 'REMOTE_RELAY_NOT_FOUND'],
    [
      'list_questions about a session that does not exist',
      { action: 'list_questions', session: '00000000-0000-4000-8000-000000000000' },
      'REMOTE_RELAY_NOT_FOUND',
    ],
  ])('refuses %s, and nothing is asked', async (_label, args, code) => {
    expect(await call(agent, args)).toMatchObject({ ok: false, code });
    expect((await call(agent, { action: 'list_questions' })).questions).toEqual([]);
  });

  it('refuses an ask about an archived session with REMOTE_RELAY_ARCHIVED', async () => {
    const archived = await user.externalAgent('Archived already');
    expect(await call(agent, { action: 'archive', relay: 'this', session: archived.id })).toMatchObject({ ok: true });
    expect(await call(agent, { action: 'ask', session: archived.id, question: 'Anyone there?' })).toMatchObject({ ok: false, code: 'REMOTE_RELAY_ARCHIVED' });
  });

  it('refuses the 21st pending ask of a conversation with REMOTE_RELAY_QUESTION_LIMIT and stores nothing', async () => {
    const limited = await user.externalAgent('Many questions');
    for (let i = 1; i <= 20; i++) await ask(limited, { question: `Question ${i}?` });
    expect(await call(limited, { action: 'ask', question: 'One too many?' })).toMatchObject({ ok: false, code: 'REMOTE_RELAY_QUESTION_LIMIT' });
    expect((await call(limited, { action: 'list_questions' })).questions).toHaveLength(20);
    // Withdrawing one makes room again.
    const first = (await call(limited, { action: 'list_questions' })).questions.at(-1).question_id;
    expect(await call(limited, { action: 'withdraw', question_id: first })).toMatchObject({ ok: true });
    await ask(limited, { question: 'Now it fits?' });
  });

  it('refuses the 21st pending ask about one session, whoever asks, with REMOTE_RELAY_QUESTION_LIMIT', async () => {
    const about = await user.externalAgent('Much asked about');
    const [first, second, third] = [await user.externalAgent('Asker one'), await user.externalAgent('Asker two'), await user.externalAgent('Asker three')];
    for (let i = 1; i <= 10; i++) {
      await ask(first!, { session: about.id, question: `One ${i}?` });
      await ask(second!, { session: about.id, question: `Two ${i}?` });
    }
    expect(await call(third!, { action: 'ask', session: about.id, question: 'One too many about it?' })).toMatchObject({
      ok: false,
      code: 'REMOTE_RELAY_QUESTION_LIMIT',
    });
    expect((await call(third!, { action: 'list_questions' })).questions).toEqual([]);
    // The asker's own limit is untouched: it may still ask about itself.
    await ask(third!, { question: 'About myself?' });
  });
});

describe('answer_question', () => {
  it("answers a script session's ask_user card from another session; the blocked turn goes on with the answer", async () => {
    const blocked = await user.scriptSession('Blocked', 'ask_user Merge now? | Merge | Wait\nreply got {{answer}}');
    const card = await user.pendingCard(blocked.id);
    expect(card).toMatchObject({ kind: 'question', options: ['Merge', 'Wait'] });
    const answerer = await user.externalAgent('Answerer');
    expect(await call(answerer, { action: 'answer_question', relay: 'this', question_id: card.id })).toMatchObject({
      ok: false,
      code: 'REMOTE_RELAY_INVALID_INPUT',
    });
    expect(await call(answerer, { action: 'answer_question', relay: 'this', question_id: card.id, choices: [] })).toMatchObject({
      ok: false,
      code: 'REMOTE_RELAY_INVALID_INPUT',
    });
    const answered = await call(answerer, { action: 'answer_question', relay: 'this', question_id: card.id, choices: ['Merge'] });
    expect(answered).toMatchObject({ ok: true, session: blocked.id, question_id: card.id, status: 'answered', choices: ['Merge'] });
    const turn = await user.finish(blocked.id, blocked.messageId);
    expect(turn.status).toBe('done');
    expect(turn.reply.text).toContain('Merge');
  });

  it('refuses an ask, an approval card and its own conversation with REMOTE_RELAY_FORBIDDEN, and nothing is answered', async () => {
    const answerer = await user.externalAgent('Forbidden answerer');
    const asker = await user.externalAgent('Asks the user');
    const questionId = await ask(asker, { question: 'Only the user answers this?' });
    const writer = await user.scriptSession('Written to', 'reply ready');
    await user.finish(writer.id, writer.messageId);
    const carded = await user.scriptSession(
      'Needs approval',
      `${tool({ action: 'send', relay: 'this', session: writer.id, text: 'reply hi', wait_seconds: 0 })}\nreply {{result.code}}`,
      { mode: 'ask' },
    );
    const approval = await user.pendingCard(carded.id);
    expect(approval.kind).toBe('approval');
    const blocked = await user.scriptSession('Blocked too', 'ask_user Go on? | Yes | No\nreply {{answer}}');
    const question = await user.pendingCard(blocked.id);

    const refusals = [
      { action: 'answer_question', relay: 'this', question_id: questionId, answer: 'yes' },
      { action: 'answer_question', relay: 'this', question_id: approval.id, choices: ['Allow'] },
      { action: 'answer_question', relay: 'this', question_id: question.id, session: answerer.id, choices: ['Yes'] },
    ];
    for (const args of refusals) expect(await call(answerer, args), JSON.stringify(args)).toMatchObject({ ok: false, code: 'REMOTE_RELAY_FORBIDDEN' });

    expect((await call(asker, { action: 'list_questions' })).questions).toEqual([expect.objectContaining({ question_id: questionId, status: 'pending' })]);
    expect((await user.pendingCard(carded.id)).id).toBe(approval.id);
    expect((await user.pendingCard(blocked.id)).id).toBe(question.id);
    expect((await user.api('GET', `/api/v1/cards?session=${answerer.id}`)).body.cards).toEqual([]);

    // The user decides what is theirs: the turns go on.
    expect((await user.api('POST', `/api/v1/cards/${approval.id}`, { decision: 'deny' })).status).toBe(200);
    expect((await user.finish(carded.id, carded.messageId)).reply.text).toBe('REMOTE_RELAY_PERMISSION');
    expect((await user.api('POST', `/api/v1/cards/${question.id}`, { decision: 'answer', choices: ['No'] })).status).toBe(200);
    expect((await user.finish(blocked.id, blocked.messageId)).reply.text).toContain('No');
  });
});
