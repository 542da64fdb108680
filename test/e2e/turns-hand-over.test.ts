// Issue 38 end to end: a rollout hands turns over instead of cutting them off. Two session replicas (as
// `relay up --replicas session=2` runs them: one database, one bus, every service dialling both through one balanced
// `ipv4:` target) and `script` agents calling relay_tool back through the gateway. Turns wait for a person (an
// ask_user card), for another session's reply (send, then wait) and run mid-way (a command allowed and running as a
// task, then the agent's own timer) on one replica; it gets SIGTERM. The waiting turns go to the other replica at
// once, the running one at the end of the grace, each from its step; then the person decides, and every wait takes
// effect once. A turn whose `send` was still held for its reply at the end of the grace is not sent twice: it ends,
// and the person reads why in the conversation and in `relay session show`. kill -9 variants: the replica holding
// waiting turns dies, their lease runs out (the relay clock is moved past it), the other replica takes them over, and
// a decision made while nobody held a turn applies once; the only replica killed and started again goes on with its
// waiting turn.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRelayCli } from '../harness/relay-cli.ts';
import { finish, pendingCard } from '../harness/script-turns.ts';
import { startRelay, type Relay, type SessionReplica } from '../harness/relay.ts';
import { until } from '../harness/until.ts';

/** The session replicas' grace on SIGTERM: long enough to see that a waiting turn does not wait for it. */
const GRACE_SECONDS = 10;
/** The turn lease (relay clock, TURN_LEASE_MS) plus a second: past it a dead replica's turns are taken over. */
const PAST_THE_LEASE_MS = 31_000;

let relay: Relay;
let db: pg.Client;
let folder: string;
let first: SessionReplica;
let second: SessionReplica;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'relay-hand-over-'));
  relay = await startRelay({
    name: 'handover',
    sessionReplicas: 2,
    // A virtual clock at the real rate: the agent's timer and the lease are skipped (jumpTo), never slept out.
    env: { RELAY_SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS), RELAY_CLOCK: new Date().toISOString() },
  });
  [first, second] = relay.sessionReplicas as [SessionReplica, SessionReplica];
  db = new pg.Client({ connectionString: relay.databaseUrls.session });
  await db.connect();
});

afterAll(async () => {
  await db?.end();
  await relay?.stop();
  await rm(folder, { recursive: true, force: true });
});

async function session(title: string, text: string, cwd?: string): Promise<{ id: string; messageId: string }> {
  const created = await relay.api('POST', '/api/v1/sessions', { provider: 'script', title, text, ...(cwd === undefined ? {} : { cwd }) });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { id: created.body.session.id, messageId: created.body.message_id };
}

type TurnRow = { status: string; runner_id: string | null; in_flight: string };
const turnOf = async (messageId: string): Promise<TurnRow> =>
  (await db.query<TurnRow>('SELECT status, runner_id, in_flight FROM turns WHERE message_id = $1', [messageId])).rows[0]!;
const turnIn = (messageId: string, status: string, inFlight?: string) =>
  until(
    `turn of ${messageId} ${status}${inFlight ? ` with "${inFlight}"` : ''}`,
    async () => {
      const turn = await turnOf(messageId);
      return turn.status === status && (inFlight === undefined || turn.in_flight.includes(inFlight)) ? turn : undefined;
    },
    { detail: () => relay.logs().slice(-4000) },
  );
const cardsOf = async (sessionId: string): Promise<any[]> => (await relay.api('GET', `/api/v1/cards?session=${sessionId}`)).body.cards;
const onePendingCard = (sessionId: string) => pendingCard(relay, sessionId);
const decide = async (cardId: string, body: Record<string, unknown>) => {
  const decided = await relay.api('POST', `/api/v1/cards/${cardId}`, body);
  expect(decided.status, JSON.stringify(decided.body)).toBe(200);
};
const messagesOf = async (sessionId: string): Promise<{ role: string; text: string }[]> =>
  (await relay.api('GET', `/api/v1/sessions/${sessionId}`)).body.messages;
const count = async (sql: string, values: unknown[]): Promise<number> => Number((await db.query<{ n: string }>(sql, values)).rows[0]!.n);

describe('SIGTERM to a session replica while its turns wait and run', () => {
  it('hands the waiting turns to the other replica at once and the running one at the end of the grace; each decision applies once', async () => {
    // Every turn starts on the first replica: the second is down while they are claimed, and back before the SIGTERM.
    await second.process.stop();
    const asker = await session('Asker', 'reply asking\nask_user Ship it? | Yes | No\nreply shipped: {{answer}}');
    const target = await session('Target', 'reply ready');
    await finish(relay, target.id, target.messageId);
    const sender = await session(
      'Sender',
      [
        `relay_tool {"action":"send","relay":"this","session":"${target.id}","text":"ask_user Go on? | Yes | No\\nreply target went on","wait_seconds":0}`,
        `relay_tool {"action":"wait","relay":"this","session":"${target.id}","message_id":"{{result.message_id}}","wait_seconds":600}`,
        'reply sender: {{result.status}}, {{result.reply.text}}',
      ].join('\n'),
    );
    const replier = await session('Replier', 'reply ready');
    await finish(relay, replier.id, replier.messageId);
    const writer = await session(
      'Writer',
      `reply writing\nrelay_tool {"action":"send","relay":"this","session":"${replier.id}","text":"ask_user Reply now? | Yes | No\\nreply replied","wait_seconds":600}\nreply never`,
    );
    const worker = await session(
      'Worker',
      'reply started\ntask echo ran >> ran.txt; sleep 3600\nreply task {{result.status}}\nwait 600\nreply finished',
      folder,
    );
    const [askCard, targetCard, commandCard, replierCard] = await Promise.all([asker.id, target.id, worker.id, replier.id].map(onePendingCard));
    // The command starts on the first replica, and the worker's turn goes on to its own 600 s timer.
    await decide(commandCard.id, { decision: 'allow' });
    const running = await turnIn(worker.messageId, 'running', 'task running');
    second.process.start();
    await second.waitReady();
    // A replica starting on the same machine leaves its sibling's command running (it fails only its own
    // predecessor's).
    expect(await count("SELECT count(*) AS n FROM tasks WHERE session_id = $1 AND status = 'running'", [worker.id])).toBe(1);
    const held = [asker, sender, worker, writer].map((s) => s.messageId).concat(await targetMessage(target.id));
    const firstRunner = running.runner_id;
    for (const messageId of held) expect((await turnOf(messageId)).runner_id).toBe(firstRunner);
    await until('the command ran', async () => (await readFile(join(folder, 'ran.txt'), 'utf8').catch(() => '')) || undefined);

    const stopping = first.process.stop();
    // The turns that wait for a person or a reply change hands within the grace, not after it.
    const handed = await until(
      'the waiting turns on the second replica',
      async () => {
        const turns = await Promise.all([asker.messageId, sender.messageId, ...(await targetMessage(target.id))].map(turnOf));
        return turns.every((turn) => turn.runner_id !== null && turn.runner_id !== firstRunner) ? turns : undefined;
      },
      { timeoutMs: GRACE_SECONDS * 1000 - 1000 },
    );
    expect(handed.map((turn) => turn.status)).toEqual(['waiting_for_answer', 'running', 'waiting_for_answer']);
    for (const messageId of [worker.messageId, writer.messageId]) expect((await turnOf(messageId)).runner_id).toBe(firstRunner);
    await stopping;
    // The running turn at the end of the grace, from its step: its timer, the reply so far shown again.
    const worked = await until('the worker turn on the second replica', async () => {
      const turn = await turnOf(worker.messageId);
      return turn.runner_id !== null && turn.runner_id !== firstRunner ? turn : undefined;
    });
    expect(worked).toMatchObject({ status: 'running', in_flight: 'started\ntask running' });
    // The writer's send was held for its reply when the grace ran out: the next replica does not send it again, and
    // the person reads why, in the conversation and on the command line.
    const why =
      'script-1: line 2: relay_tool send was under way when the relay handed this turn to another of its replicas; it is not done twice, so the turn ends here. Check what it did, then send again';
    expect(await finish(relay, writer.id, writer.messageId)).toMatchObject({ status: 'error', error: why });
    expect((await messagesOf(writer.id)).map((m) => [m.role, m.text])).toEqual([
      ['user', expect.any(String)],
      ['error', expect.stringContaining(why)],
    ]);
    const shown = await runRelayCli(relay, relay.userToken, 'session', 'show', writer.id);
    expect(shown.stdout).toContain('turn failed ·');
    expect(shown.stdout).toContain(`  This turn failed: ${why}`);

    // Nothing was lost: the same cards wait, none withdrawn, none raised again.
    for (const [sessionId, card] of [
      [asker.id, askCard],
      [target.id, targetCard],
    ] as const) {
      expect((await cardsOf(sessionId)).map((c) => [c.id, c.status])).toEqual([[card.id, 'pending']]);
    }
    await decide(askCard.id, { decision: 'answer', choices: ['Yes'] });
    await decide(targetCard.id, { decision: 'answer', choices: ['Yes'] });
    await decide(replierCard.id, { decision: 'answer', choices: ['Yes'] });
    expect(await finish(relay, asker.id, asker.messageId)).toMatchObject({ status: 'done', reply: { text: 'asking\nshipped: Yes' } });
    expect(await finish(relay, sender.id, sender.messageId)).toMatchObject({ status: 'done', reply: { text: 'sender: done, target went on' } });
    // Then the worker's own timer runs out (skipped on the relay clock, once nothing else waits on that clock).
    await relay.jumpTo(new Date(relay.now().getTime() + 600_000));
    expect(await finish(relay, worker.id, worker.messageId)).toMatchObject({ status: 'done', reply: { text: 'started\ntask running\nfinished' } });
    await relay.settled();

    // Once each: one card per wait, one reply per turn, no error rows, one send, one command run (one task).
    expect((await cardsOf(asker.id)).map((c) => c.status)).toEqual(['answered']);
    expect((await cardsOf(target.id)).map((c) => c.status)).toEqual(['answered']);
    expect((await cardsOf(worker.id)).map((c) => c.status)).toEqual(['allowed']);
    const roles = async (sessionId: string) => (await messagesOf(sessionId)).map((m) => m.role);
    expect(await roles(asker.id)).toEqual(['user', 'assistant']);
    expect(await roles(sender.id)).toEqual(['user', 'assistant']);
    expect(await roles(worker.id)).toEqual(['user', 'assistant']);
    expect(await roles(target.id)).toEqual(['user', 'assistant', 'agent', 'assistant']);
    // The writer's send went once: one prompt in the replier's conversation, answered once.
    await finish(relay, replier.id, (await targetMessage(replier.id))[0]!);
    expect(await roles(replier.id)).toEqual(['user', 'assistant', 'agent', 'assistant']);
    expect((await cardsOf(replier.id)).map((c) => c.status)).toEqual(['answered']);
    const all = [asker.id, sender.id, worker.id, target.id, writer.id, replier.id];
    expect(await count('SELECT count(*) AS n FROM turns WHERE session_id = ANY($1)', [all])).toBe(8);
    expect(await count("SELECT count(*) AS n FROM turns WHERE session_id = ANY($1) AND status <> 'done'", [all])).toBe(1);
    expect(await count('SELECT count(*) AS n FROM tasks WHERE session_id = $1', [worker.id])).toBe(1);
    expect(await readFile(join(folder, 'ran.txt'), 'utf8')).toBe('ran\n');
  });
});

describe('kill -9 of the session replica that holds waiting turns', () => {
  it('the other replica takes them over once the lease ran out; a decision made meanwhile and one made after apply once', async () => {
    // Both turns start on the second replica (the first is down since the SIGTERM), which then dies.
    const early = await session('Early', 'ask_user Decided while nobody held this? | Yes | No\nreply early: {{answer}}');
    const late = await session('Late', 'reply waiting\nask_user Decided after the take-over? | Yes | No\nreply late: {{answer}}');
    const [earlyCard, lateCard] = await Promise.all([early.id, late.id].map(onePendingCard));
    const dying = (await turnOf(late.messageId)).runner_id;
    expect((await turnOf(early.messageId)).runner_id).toBe(dying);
    first.process.start();
    await first.waitReady();
    await second.process.kill();
    await gatewayReachesASessionReplica();

    await decide(earlyCard.id, { decision: 'answer', choices: ['Yes'] });
    await relay.jumpTo(new Date(relay.now().getTime() + PAST_THE_LEASE_MS));
    const taken = await until('both turns on the first replica', async () => {
      const turns = await Promise.all([early.messageId, late.messageId].map(turnOf));
      return turns.every((turn) => turn.runner_id !== null && turn.runner_id !== dying) ? turns : undefined;
    });
    expect(taken[1]).toMatchObject({ status: 'waiting_for_answer', in_flight: 'waiting' });
    expect(await finish(relay, early.id, early.messageId)).toMatchObject({ status: 'done', reply: { text: 'early: Yes' } });
    await decide(lateCard.id, { decision: 'answer', choices: ['No'] });
    expect(await finish(relay, late.id, late.messageId)).toMatchObject({ status: 'done', reply: { text: 'waiting\nlate: No' } });

    await relay.settled();
    for (const sessionId of [early.id, late.id]) {
      expect(await cardsOf(sessionId)).toHaveLength(1);
      expect((await messagesOf(sessionId)).map((m) => m.role)).toEqual(['user', 'assistant']);
    }
  });
});

describe('kill -9 of the only session replica while a card waits', () => {
  it('the replica started again takes the turn over once the lease ran out, and the decision made after the restart applies once', async () => {
    // The first replica runs alone now (the second was killed above).
    const again = await session('Again', 'reply waiting\nask_user Decided after the restart? | Yes | No\nreply again: {{answer}}');
    const card = await onePendingCard(again.id);
    const dead = (await turnOf(again.messageId)).runner_id;
    await first.process.kill();
    first.process.start();
    await first.waitReady();
    await gatewayReachesASessionReplica();
    await relay.jumpTo(new Date(relay.now().getTime() + PAST_THE_LEASE_MS));
    await until('the restarted replica took the turn over', async () => {
      const turn = await turnOf(again.messageId);
      return turn.runner_id !== null && turn.runner_id !== dead ? turn : undefined;
    });
    expect((await cardsOf(again.id)).map((c) => [c.id, c.status])).toEqual([[card.id, 'pending']]);
    await decide(card.id, { decision: 'answer', choices: ['Yes'] });
    expect(await finish(relay, again.id, again.messageId)).toMatchObject({ status: 'done', reply: { text: 'waiting\nagain: Yes' } });
    await relay.settled();
    expect(await cardsOf(again.id)).toHaveLength(1);
    expect((await messagesOf(again.id)).map((m) => m.role)).toEqual(['user', 'assistant']);
  });
});

/**
 * Until the gateway's calls reach a live replica: its balanced connection leaves a killed replica out once a call
 * found it gone (a Kubernetes Service would have done so for it).
 */
async function gatewayReachesASessionReplica(): Promise<void> {
  let answered = 0;
  await until('the gateway reaching the live session replica', async () => {
    answered = (await relay.api('GET', '/api/v1/sessions')).status === 200 ? answered + 1 : 0;
    return answered >= 3 ? true : undefined;
  });
}

/** The message ids of a session's turns after its first (another session's prompts), once they are queued. */
async function targetMessage(targetId: string): Promise<string[]> {
  const rows = await db.query<{ message_id: string }>('SELECT message_id FROM turns WHERE session_id = $1 ORDER BY queued_at OFFSET 1', [targetId]);
  return rows.rows.map((row) => row.message_id);
}
