/**
 * Identity ends completely (docs/security.md, Users and tokens): once an admin removes a user, nothing acts for them
 * any more, on two real relays. The pairing they made stops taking calls (the paired relay's create_session creates
 * nothing), their own token and their external session's token stop working, and a schedule into their session does
 * not fire. Each is checked by its effect: the session that must not exist, the message that must not be written.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callUserApi, startRelay, type Relay } from '../harness/relay.ts';
import { RelayUser, toolStep } from '../harness/relay-user.ts';

const MINUTE = 60_000;

let a: Relay;
let b: Relay;
let carol: RelayUser;
let carolId: string;
let carolSessionToken: string;
/** Carol's `script` session, with a schedule into it set before she is removed. */
let scheduled: string;
/** The admin's, with the same schedule: it fires, so the jump would have fired carol's. */
let control: string;

/** Rows of guard-a's session database. */
async function query<T extends pg.QueryResultRow>(sql: string, values: unknown[]): Promise<T[]> {
  const db = new pg.Client({ connectionString: a.connection.databaseUrls.session });
  await db.connect();
  try {
    return (await db.query<T>(sql, values)).rows;
  } finally {
    await db.end();
  }
}

/** A turn on guard-b that creates a session titled `title` on guard-a (the relay is unlocked by the first line); its reply. */
async function createFromB(title: string): Promise<string> {
  const onB = new RelayUser(b, b.userToken);
  const started = await onB.scriptSession(
    `Creates ${title}`,
    [
      '# removal-a',
      toolStep({ action: 'create_session', relay: 'removal-a', title, text: 'reply hi', wait_seconds: 0 }),
      'reply {{result.ok}} {{result.code}}',
    ].join('\n'),
  );
  // guard-b's own first-session card: its user allows it.
  const finished = (async () => {
    for (;;) {
      const { body } = await onB.api('GET', `/api/v1/cards?session=${started.id}&pending=1`);
      for (const card of body.cards ?? []) await onB.api('POST', `/api/v1/cards/${card.id}`, { decision: 'allow' });
      const wait = await onB.api('GET', `/api/v1/sessions/${started.id}/wait?message_id=${started.messageId}&wait_seconds=1`);
      if (!['queued', 'running', 'waiting_for_answer'].includes(wait.body.status)) return wait.body;
    }
  })();
  return (await finished).reply.text;
}

beforeAll(async () => {
  a = await startRelay({ name: 'removal-a', readyTimeoutMs: 240_000, env: { RELAY_CLOCK: '2026-12-01T09:00:00Z@1x' } });
  b = await startRelay({ name: 'removal-b', readyTimeoutMs: 240_000 });
  const admin = new RelayUser(a, a.userToken);
  // A second admin, who makes the pairing: calls from guard-b act for her.
  const made = await admin.api('POST', '/api/v1/users', { name: 'carol', role: 'admin' });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  carolId = made.body.user.id;
  carol = new RelayUser(a, made.body.token);
  const code = await carol.api('POST', '/api/v1/pairing-codes');
  expect(code.status, JSON.stringify(code.body)).toBe(201);
  const paired = await b.api('POST', '/api/v1/pairings', { url: a.gatewayUrl, code: code.body.code });
  expect(paired.status, JSON.stringify(paired.body)).toBe(201);

  const external = await carol.api('POST', '/api/v1/sessions', { external: true, title: "Carol's terminal" });
  carolSessionToken = external.body.token;
  const at = new Date(a.now().getTime() + 30 * MINUTE).toISOString();
  const plan = `${toolStep({ action: 'schedule', title: 'Later', text: 'reply scheduled', at })}\nreply {{result.ok}}`;
  for (const [user, title] of [
    [carol, 'Carol plans'],
    [admin, 'The admin plans'],
  ] as const) {
    const started = await user.scriptSession(title, plan);
    expect((await user.finish(started.id, started.messageId)).reply.text).toBe('true');
    if (user === carol) scheduled = started.id;
    else control = started.id;
  }

  // Before the removal, the pairing acts for carol.
  expect(await createFromB('Made while carol was here')).toBe('true ');
  expect(await query('SELECT id FROM sessions WHERE title = $1 AND user_id = $2', ['Made while carol was here', carolId])).toHaveLength(1);

  const removed = await admin.api('DELETE', `/api/v1/users/${carolId}`);
  expect(removed.status, JSON.stringify(removed.body)).toBe(200);
}, 900_000);

afterAll(async () => {
  await carol?.close();
  await Promise.all([a?.stop(), b?.stop()]);
});

describe('once a user is removed, nothing acts for them', () => {
  it('the pairing they made takes no call: the paired relay creates nothing', async () => {
    expect(await createFromB('Made after carol left')).not.toBe('true ');
    expect(await query('SELECT id FROM sessions WHERE title = $1', ['Made after carol left'])).toEqual([]);
  });

  it('their own token and their external session’s token stop working', async () => {
    expect((await carol.api('GET', '/api/v1/me')).status).toBe(401);
    expect((await callUserApi(a.gatewayUrl, carolSessionToken, 'GET', '/api/v1/me')).status).not.toBe(200);
    await expect(
      a.connectAgent(carolSessionToken).then((client) => client.callTool({ name: 'relay_tool', arguments: { action: 'list_relays' } })),
    ).rejects.toThrow();
  });

  it('a schedule into their session does not fire', async () => {
    await a.jumpTo(new Date(a.now().getTime() + 45 * MINUTE));
    await a.settled();
    const fired = (sessionId: string) => query<{ text: string }>("SELECT text FROM messages WHERE session_id = $1 AND role = 'schedule'", [sessionId]);
    expect(await fired(control)).toHaveLength(1);
    expect(await fired(scheduled)).toEqual([]);
  });
});
