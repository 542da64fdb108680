// Issue 8, events across relays, end to end with two relays on loopback: "desk" (A) pairs with "build-box" (B);
// a `script` watcher on A subscribes to a session of B through relay_tool (the relay unlocked by the user's
// message naming it); B's turn_end reaches A as a row starting with B's name, and all_idle of B's sessions,
// computed on B with the subscription's exclude, reaches another watcher on A; archiving on B the one session a
// third watcher's subscription lists ends it on A. Then B's gateway stops while B's
// session goes on: A writes link_lost, B keeps what happens, and when B's gateway is back A gets one row tagged
// replayed with every event in order, nothing twice, then link_restored. Past B's buffer cap (5 here through
// REMOTE_BUFFER_LIMIT, 500 in production) the replayed row says how many older events were dropped. An ask about
// B's session is kept on B; the user answers it there and A's asking conversation gets question_answered via B.
// Removing the pairing ends the subscription. When A itself is stopped instead (it never sees a fetch fail), its
// return shows the gap the same way: link_lost, the replayed row with the drop count, link_restored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SendMessageRequest } from '@relay/proto/relay/session/v1/session_service';
import { callUnary } from '@relay/rpc';
import { STATEFUL, startRelay, type Relay } from '../harness/relay.ts';
import { decideCard, finish, scriptSession } from '../harness/script-turns.ts';

const tool = (args: Record<string, unknown>) => `relay_tool ${JSON.stringify(args)}`;

/** The watcher's event rows, once `until` appears in them `times` times (real-time deadline). */
async function eventRowsUntil(relay: Relay, sessionId: string, until: string, times = 1, timeoutMs = 90_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await relay.api('GET', `/api/v1/sessions/${sessionId}?last=100`);
    const rows: string[] = (body.messages ?? [])
      .filter((message: { role: string }) => message.role === 'event')
      .map((message: { text: string }) => message.text);
    if (occurrences(rows, until) >= times) return rows;
    if (Date.now() > deadline) throw new Error(`no event row with ${until} (${times}×) in ${sessionId}: ${JSON.stringify(rows)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Prompts B's session through B's session service (its gateway may be down) and waits for each turn to end. */
async function produceOnB(b: Relay, userId: string, sessionId: string, texts: string[]): Promise<void> {
  for (const text of texts) await callUnary(b.sessionClient, 'sendMessage', SendMessageRequest.fromPartial({ userId, sessionId, text: `reply ${text}` }));
  const deadline = Date.now() + 90_000;
  for (;;) {
    const read = await callUnary<object, { messages: { role: string; text: string }[] }>(b.sessionClient, 'readSession', { userId, sessionId, last: 100 });
    const replies = read.messages.filter((message) => message.role === 'assistant').map((message) => message.text);
    if (texts.every((text) => replies.includes(text))) return;
    if (Date.now() > deadline) throw new Error(`B's session did not answer ${texts.join(', ')}: ${JSON.stringify(replies)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function occurrences(rows: string[], text: string): number {
  return rows.join('\n').split(text).length - 1;
}

// Two whole relays, and B's gateway started three times: slower than one relay's tests.
describe('events across relays', { timeout: 300_000 }, () => {
  let a: Relay;
  let b: Relay;
  let bUserId: string;
  let worker: string;
  let watcher: string;

  beforeAll(async () => {
    // A runs 60x, so its 30-second coalescing window is half a second, and fetches every 30 s of its time (0.5 s).
    // One after the other: twelve processes starting at once crowd a small machine.
    a = await startRelay({ name: 'desk', env: { RELAY_CLOCK: `${new Date().toISOString()}@60x`, REMOTE_FETCH_INTERVAL_MS: '30000' }, readyTimeoutMs: 300_000 });
    b = await startRelay({ name: 'build-box', env: { REMOTE_BUFFER_LIMIT: '5' }, readyTimeoutMs: 300_000 });
    const code = await b.api('POST', '/api/v1/pairing-codes');
    expect(code.status, JSON.stringify(code.body)).toBe(201);
    const paired = await a.api('POST', '/api/v1/pairings', { url: b.gatewayUrl, code: code.body.code });
    expect(paired.status, JSON.stringify(paired.body)).toBe(201);
    bUserId = (await callUnary<object, { caller: { userId: string } }>(b.sessionClient, 'authenticate', { token: b.userToken })).caller.userId;
  }, 700_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it("a watcher on A subscribes to a session of B and is woken by its turn_end, the row starting with B's name", async () => {
    const started = await scriptSession(b, 'Nightly deploy', 'reply ready');
    worker = started.id;
    await finish(b, worker, started.messageId);

    // The user's message names build-box: that unlocks it in the watcher's conversation.
    // turn_end only: each turn is then exactly one event, which the replay counts below rely on (the default events
    // would add B's computed all_idle, which has a test of its own).
    const subscribing = await scriptSession(a, 'Watcher', tool({ action: 'subscribe', relay: 'build-box', sessions: [worker], events: ['turn_end'] }));
    watcher = subscribing.id;
    const card = await decideCard(a, watcher, 'allow');
    expect(card.title).toContain('on build-box');
    const turn = await finish(a, watcher, subscribing.messageId);
    const result = JSON.parse(turn.reply.text);
    expect(result, turn.reply.text).toMatchObject({
      ok: true,
      relay: 'build-box',
      subscription: { relay: 'build-box', sessions: [{ id: worker, title: 'Nightly deploy' }] },
    });

    const sent = await b.api('POST', `/api/v1/sessions/${worker}/messages`, { text: 'reply Deployed. The health check is green.' });
    expect(sent.status).toBe(201);
    await finish(b, worker, sent.body.message_id);

    const rows = await eventRowsUntil(a, watcher, 'Deployed.');
    expect(rows.join('\n')).toContain(
      `[relay event] build-box · session "Nightly deploy" (${worker.slice(0, 4)}…): turn_end (done) "Deployed. The health check is green."`,
    );

    const listed = await a.api('POST', `/api/v1/sessions/${watcher}/messages`, { text: tool({ action: 'list_subscriptions', relay: 'build-box' }) });
    const listing = JSON.parse((await finish(a, watcher, listed.body.message_id)).reply.text);
    expect(listing).toMatchObject({ ok: true, relay: 'build-box', subscriptions: [{ id: result.subscription.id, relay: 'build-box' }] });
  });

  it("all_idle of B's sessions, computed on B with the subscription's exclude, reaches a watcher on A with B's name", async () => {
    // A session of B that stays busy: left out by exclude, it does not keep the others from being idle.
    const busy = await scriptSession(b, 'Long build', 'wait 600');
    const subscribing = await scriptSession(
      a,
      'Idle watcher',
      tool({ action: 'subscribe', relay: 'build-box', sessions: ['all'], exclude: [busy.id], events: ['all_idle'] }),
    );
    await decideCard(a, subscribing.id, 'allow');
    const subscribed = JSON.parse((await finish(a, subscribing.id, subscribing.messageId)).reply.text);
    expect(subscribed, JSON.stringify(subscribed)).toMatchObject({
      ok: true,
      relay: 'build-box',
      subscription: { id: expect.stringMatching(/^sub_/), exclude: [busy.id] },
    });

    // Idleness that began before the subscription counts for nothing: B's worker runs a turn, and its end is the instant.
    const sent = await b.api('POST', `/api/v1/sessions/${worker}/messages`, { text: 'reply idle now' });
    expect(sent.status).toBe(201);
    await finish(b, worker, sent.body.message_id);

    const rows = await eventRowsUntil(a, subscribing.id, 'all_idle');
    const idle = rows.filter((row) => row.includes('all_idle'));
    expect(idle.join('\n')).toMatch(
      new RegExp(
        `\\[relay event\\] build-box · all_idle: no turn or task is running in (the watched session|the \\d+ watched sessions) \\(subscription ${subscribed.subscription.id}\\)`,
      ),
    );
    expect(occurrences(rows, 'all_idle'), JSON.stringify(rows)).toBe(1);
    await callUnary(b.sessionClient, 'stopTurn', { userId: bUserId, callerSessionId: '', sessionId: busy.id });
  });

  it('a session archived on B ends the subscription on A that listed only it, with reason session_archived', async () => {
    const old = await scriptSession(b, 'Old work', 'reply wrapped up');
    await finish(b, old.id, old.messageId);
    const subscribing = await scriptSession(a, 'Archive watcher', tool({ action: 'subscribe', relay: 'build-box', sessions: [old.id] }));
    await decideCard(a, subscribing.id, 'allow');
    const subscribed = JSON.parse((await finish(a, subscribing.id, subscribing.messageId)).reply.text);
    expect(subscribed, JSON.stringify(subscribed)).toMatchObject({ ok: true, relay: 'build-box', subscription: { sessions: [{ id: old.id }] } });

    await callUnary(b.sessionClient, 'archiveSession', { userId: bUserId, callerSessionId: '', sessionId: old.id });
    await expect
      .poll(async () => (await a.api('GET', `/api/v1/sessions/${subscribing.id}/subscriptions`)).body.subscriptions, { timeout: 60_000, interval: 500 })
      .toEqual([expect.objectContaining({ id: subscribed.subscription.id, relay: 'build-box', ended: true, reason: 'session_archived' })]);
  });

  it('a dropped link: link_lost, then one replayed row with every event in order and nothing twice, then link_restored', async () => {
    await b.services.gateway.stop();
    await eventRowsUntil(a, watcher, 'link_lost');
    await produceOnB(b, bUserId, worker, ['first while down', 'second while down', 'third while down']);
    b.services.gateway.start();
    await b.waitReady('gateway');

    const rows = await eventRowsUntil(a, watcher, 'link_restored');
    const text = rows.join('\n');
    const lost = text.indexOf('link_lost');
    const replayed = text.indexOf('[relay event] build-box · replayed: 3 events kept there while the link was down:');
    const restored = text.indexOf('link_restored: the relay answers again; 3 events replayed');
    expect(lost, text).toBeGreaterThanOrEqual(0);
    expect(replayed, text).toBeGreaterThan(lost);
    expect(restored, text).toBeGreaterThan(replayed);
    const order = ['first while down', 'second while down', 'third while down'].map((reply) => text.indexOf(`turn_end (done) "${reply}"`));
    expect(
      order.every((at, index) => at > replayed && (index === 0 || at > order[index - 1]!)),
      text,
    ).toBe(true);
    for (const reply of ['first while down', 'second while down', 'third while down', 'Deployed. The health check is green.']) {
      expect(occurrences(rows, `"${reply}"`), reply).toBe(1);
    }
  });

  it("past the buffer's cap while the link is down, the replayed row keeps the newest and says how many older were dropped", async () => {
    await b.services.gateway.stop();
    await eventRowsUntil(a, watcher, 'link_lost', 2);
    const texts = Array.from({ length: 8 }, (_, index) => `burst ${index + 1}`);
    await produceOnB(b, bUserId, worker, texts);
    b.services.gateway.start();
    await b.waitReady('gateway');

    const rows = await eventRowsUntil(a, watcher, 'link_restored', 2);
    const text = rows.join('\n');
    expect(text).toContain(
      '[relay event] build-box · replayed: 5 events kept there while the link was down; 3 older events dropped there, which keeps only the newest:',
    );
    for (const kept of texts.slice(3)) expect(occurrences(rows, `"${kept}"`), kept).toBe(1);
    for (const dropped of texts.slice(0, 3)) expect(occurrences(rows, `"${dropped}"`), dropped).toBe(0);
  });

  // Issue 39: the watcher's own relay was down, so A never saw a fetch fail; the gap must show all the same.
  it("A itself stopped while B's session goes on: on its return link_lost, one replayed row with the newest kept and the dropped counted, then link_restored", async () => {
    await a.services.gateway.stop();
    await Promise.all(STATEFUL.map((service) => a.services[service].stop()));
    const texts = Array.from({ length: 8 }, (_, index) => `while A was away ${index + 1}`);
    await produceOnB(b, bUserId, worker, texts);
    for (const service of [...STATEFUL, 'gateway'] as const) a.services[service].start();
    await Promise.all([...STATEFUL, 'gateway' as const].map((service) => a.waitReady(service)));

    const rows = await eventRowsUntil(a, watcher, 'link_restored', 3);
    const text = rows.join('\n');
    const lost = text.lastIndexOf('link_lost');
    const replayed = text.lastIndexOf(
      '[relay event] build-box · replayed: 5 events kept there while the link was down; 3 older events dropped there, which keeps only the newest:',
    );
    const restored = text.lastIndexOf('link_restored: the relay answers again; 5 events replayed');
    expect(occurrences(rows, 'link_lost'), text).toBe(3);
    expect(lost, text).toBeGreaterThan(text.indexOf('"burst 8"'));
    expect(replayed, text).toBeGreaterThan(lost);
    expect(restored, text).toBeGreaterThan(replayed);
    const order = texts.slice(3).map((reply) => text.indexOf(`turn_end (done) "${reply}"`));
    expect(
      order.every((at, index) => at > replayed && at < restored && (index === 0 || at > order[index - 1]!)),
      text,
    ).toBe(true);
    for (const kept of texts.slice(3)) expect(occurrences(rows, `"${kept}"`), kept).toBe(1);
    for (const dropped of texts.slice(0, 3)) expect(occurrences(rows, `"${dropped}"`), dropped).toBe(0);
  });

  // After the cap test: the answer also wakes B's session (the ask is about it), whose turn_end would count there.
  it('an ask about a session of B is kept on B, answered there, and reaches the asking conversation on A via build-box', async () => {
    const asking = await scriptSession(
      a,
      'Asker',
      [
        tool({ action: 'ask', relay: 'build-box', session: worker, question: 'Ship the migration tonight?', options: ['Tonight', 'Wait'] }),
        'reply {{result.question_id}}',
      ].join('\n'),
    );
    const asked = await finish(a, asking.id, asking.messageId);
    const questionId = asked.reply.text.trim();
    expect(questionId, JSON.stringify(asked)).toMatch(/^ask_/);

    const onB = await b.api('GET', `/api/v1/asks?session=${worker}`);
    expect(onB.status, JSON.stringify(onB.body)).toBe(200);
    expect(JSON.stringify(onB.body)).toContain(questionId);
    // The session it is about shows it pending on B (the ask marked that session there first).
    const read = await b.api('GET', `/api/v1/sessions/${worker}`);
    expect(read.body.pendingQuestions).toEqual([expect.objectContaining({ id: questionId, kind: 'ask' })]);
    const answered = await b.api('POST', `/api/v1/asks/${questionId}`, { decision: 'answer', choice: 'Wait' });
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);

    const rows = await eventRowsUntil(a, asking.id, 'question_answered');
    expect(rows.join('\n')).toContain(`question_answered: question ${questionId} answered (chose "Wait"; via build-box)`);
    const listed = await a.api('POST', `/api/v1/sessions/${asking.id}/messages`, { text: tool({ action: 'list_questions', relay: 'build-box' }) });
    const listing = JSON.parse((await finish(a, asking.id, listed.body.message_id)).reply.text);
    expect(listing).toMatchObject({
      ok: true,
      relay: 'build-box',
      questions: [{ question_id: questionId, status: 'answered', choice: 'Wait', session: worker }],
    });
  });

  it("removing the pairing ends the subscriptions to that relay's sessions", async () => {
    const removed = await a.api('DELETE', '/api/v1/pairings/build-box');
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    await expect
      .poll(
        async () => {
          const listed = await a.api('POST', `/api/v1/sessions/${watcher}/messages`, { text: tool({ action: 'list_subscriptions' }) });
          return JSON.parse((await finish(a, watcher, listed.body.message_id)).reply.text).subscriptions;
        },
        { timeout: 60_000, interval: 500 },
      )
      .toEqual([expect.objectContaining({ relay: 'build-box', ended: true, reason: 'unpaired' })]);
  });
});
