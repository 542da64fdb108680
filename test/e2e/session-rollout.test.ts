// A rollout replaces a session replica while its agents work: SIGTERM to the session service mid-turn, as Kubernetes
// sends it, on a relay started as `relay up` starts one (six real services, real NATS and PostgreSQL, `script` agents
// calling relay_tool back through the gateway). The replica claims nothing new, a turn that ends within the grace
// ends as it would have (its agent's relay_tool call still answered), a turn that would outlast the grace is handed
// over (it stays running, let go, with where its agent is) and the replica that comes next goes on with it from its
// step, and a message sent while the replica shut down waits in the conversation for that replica, which runs it.
// Nothing is lost, nothing runs twice. (test/e2e/turns-hand-over.test.ts hands turns to a second replica.)
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finish, scriptSession } from '../harness/script-turns.ts';
import { startRelay, type Relay } from '../harness/relay.ts';
import { until } from '../harness/until.ts';

const GRACE_SECONDS = 6;
let relay: Relay;

beforeAll(async () => {
  // A virtual clock at the real rate: the short turn's wait ends when the test skips it (relay.jumpTo).
  relay = await startRelay({ name: 'rollout', env: { RELAY_SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS), RELAY_CLOCK: new Date().toISOString() } });
});

afterAll(async () => {
  await relay?.stop();
});

/** Waits until the session's running turn has written `text` as its reply so far. */
const inFlight = (sessionId: string, text: string) =>
  until(`${sessionId} shows "${text}" in flight`, async () => {
    const read = await relay.api('GET', `/api/v1/sessions/${sessionId}`);
    return read.body?.inFlight?.includes(text) ? true : undefined;
  });

const result = async (sessionId: string, messageId: string) =>
  (await relay.api('GET', `/api/v1/sessions/${sessionId}/wait?message_id=${messageId}&wait_seconds=0`)).body;

describe('SIGTERM to the session service mid-turn', () => {
  it('lets a running turn finish, hands one that would outlast the grace to the next replica, which goes on with it, and runs a message sent meanwhile', async () => {
    const short = await scriptSession(
      relay,
      'Short',
      'reply started\nwait 15\nrelay_tool {"action":"list_sessions","relay":"this"}\nreply finished during the rollout',
    );
    const long = await scriptSession(relay, 'Long', 'reply working\nwait 600\nreply never');
    await Promise.all([inFlight(short.id, 'started'), inFlight(long.id, 'working')]);

    const exited = relay.services.session.stop();
    // Sent while the replica drains: still answered (the replica serves until its turns ended), never claimed by it.
    const later = await relay.api('POST', `/api/v1/sessions/${short.id}/messages`, { text: 'reply the next replica ran this' });
    expect(later.status, JSON.stringify(later.body)).toBe(201);
    // Then the short turn goes on, well within the grace: its wait is skipped (less than a lease, which stays held).
    await relay.jumpTo(new Date(relay.now().getTime() + 15_000));
    await exited;

    // The replica ended the short turn itself and let the long one go (nobody holds it) before it exited.
    const db = new pg.Client({ connectionString: relay.databaseUrls.session });
    await db.connect();
    const rows = await db.query<{ message_id: string; status: string; runner_id: string | null }>(
      'SELECT message_id, status, runner_id FROM turns WHERE message_id = ANY($1)',
      [[short.messageId, long.messageId, later.body.message_id]],
    );
    await db.end();
    expect(Object.fromEntries(rows.rows.map((row) => [row.message_id, [row.status, row.runner_id === null]]))).toEqual({
      [short.messageId]: ['done', false],
      [long.messageId]: ['running', true],
      [later.body.message_id]: ['queued', true],
    });

    relay.services.session.start();
    await relay.waitReady('session');
    // The gateway's connection comes back within its reconnect backoff.
    await until('the gateway reaches the new replica', async () => ((await relay.api('GET', '/api/v1/sessions')).status === 200 ? true : undefined));
    const shortEnd = await result(short.id, short.messageId);
    expect(shortEnd, JSON.stringify(shortEnd)).toMatchObject({ status: 'done', reply: { text: 'started\nfinished during the rollout' } });
    // The next replica takes the long turn over at its wait, which ends 600 relay seconds after it began, not later.
    await relay.jumpTo(new Date(relay.now().getTime() + 600_000));
    await finish(relay, long.id, long.messageId);
    const longEnd = await result(long.id, long.messageId);
    expect(longEnd, JSON.stringify(longEnd)).toMatchObject({ status: 'done', reply: { text: 'working\nnever' } });
    expect((await relay.api('GET', `/api/v1/sessions/${long.id}`)).body.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);

    await finish(relay, short.id, later.body.message_id);
    expect(await result(short.id, later.body.message_id)).toMatchObject({ status: 'done', reply: { text: 'the next replica ran this' } });
    const conversation = (await relay.api('GET', `/api/v1/sessions/${short.id}`)).body.messages.map(
      (m: { role: string; text: string }) => `${m.role}: ${m.text}`,
    );
    // In the order they were written: the second message came while the first turn still ran.
    expect(conversation).toEqual([
      expect.stringMatching(/^user: reply started/),
      'user: reply the next replica ran this',
      'assistant: started\nfinished during the rollout',
      'assistant: the next replica ran this',
    ]);
  });
});
