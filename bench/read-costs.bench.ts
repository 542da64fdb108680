// Benchmark of what relay_tool's reads cost as the data grows (prints figures; it is not a test). Run from the
// repository root:
//   npx tsx bench/read-costs.bench.ts
// (needs the local PostgreSQL at 127.0.0.1:5432; starts a relay of its own with test/harness/relay.ts, rebuilding
// stale service bundles first).
//
// Each read at 1×, 10× and 100× its data, seeded straight into the services' own databases: `list_sessions` for a
// user with 100, 1,000 and 10,000 sessions, `read_session` of a conversation of 100, 1,000 and 10,000 messages, and
// `list_questions` of a conversation with 10, 100 and 1,000 pending asks (past the 20 a conversation may ask: the
// seed goes round the rule, to see what the listing costs; the question service lists at most 500, and so does its
// SQL here), and `list_subscriptions` of a conversation with 10, 100 and 1,000 active subscriptions (past its limit
// the same way). `list_sessions` answers a page of 100 (the most recently active, with their total): its SQL is that
// page and the count.
// Beside each, measured in the same minutes (a call of each in turn), the bare SQL that returns the same rows in the
// read's order, run by this process over one PostgreSQL connection as a prepared statement (as the services run their
// reads): the goal is the read within 2× of it at every size. It prints p50 and
// the answer's size.
//
//   BENCH_CALLS   calls of each read and of its SQL per size (default 40)
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import pg from 'pg';
import { startRelay } from '../test/harness/relay.ts';
import { fixed, inTurn, loadAverage, percentile } from './support/figures.ts';
import { mcpClient } from './support/relay-agents.ts';

/** scripts/build.mjs (no type declarations): rebuilds the service bundles older than their sources. */
const { buildStaleServices } = (await import(new URL('../scripts/build.mjs', import.meta.url).href)) as { buildStaleServices(): Promise<void> };

const CALLS = Number(process.env.BENCH_CALLS ?? 40);
const SIZES = [100, 1_000, 10_000];
// Enough for a relay just started to have compiled its paths: its first size would otherwise read slower than the next.
const WARM_UP = 20;

type Timed = () => Promise<number>;

/** A relay_tool call's time and the length of its answer's text, failing loudly when it is refused. */
function relayRead(client: Client, args: Record<string, unknown>, sizes: number[]): Timed {
  return async () => {
    const start = performance.now();
    const result = await client.callTool({ name: 'relay_tool', arguments: args });
    const ms = performance.now() - start;
    const text = (result.content as { text?: string }[] | undefined)?.[0]?.text ?? '';
    if (result.isError === true) throw new Error(`${String(args.action)} failed: ${text.slice(0, 300)}`);
    sizes.push(text.length);
    return ms;
  };
}

/**
 * A statement's time, prepared under `name` on its first call as the services prepare their reads (docs/adr/0024): each
 * call after binds and runs it, without parsing and planning it again.
 */
function sqlRead(db: pg.Client, name: string, text: string, values: unknown[]): Timed {
  return async () => {
    const start = performance.now();
    await db.query({ name, text, values });
    return performance.now() - start;
  };
}

/** Both reads `CALLS` times, one of each in turn; their p50s in ms. */
async function sideBySide(read: Timed, sql: Timed): Promise<{ read: number; sql: number }> {
  for (let i = 0; i < WARM_UP; i++) {
    await read();
    await sql();
  }
  const times = { read: [] as number[], sql: [] as number[] };
  const calls = { read, sql };
  for (let i = 0; i < CALLS; i++) for (const side of inTurn(['read', 'sql'] as const, i)) times[side].push(await calls[side]());
  return {
    read: percentile(
      times.read.sort((a, b) => a - b),
      50,
    ),
    sql: percentile(
      times.sql.sort((a, b) => a - b),
      50,
    ),
  };
}

/** list_sessions' rows as bare SQL: the page of the 100 most recently active sessions, and how many there are. */
function sqlPage(db: pg.Client, userId: string): Timed {
  return async () => {
    const start = performance.now();
    await db.query({
      name: 'bench_page',
      text: 'SELECT * FROM sessions WHERE user_id = $1 AND archived = false ORDER BY last_activity_at DESC, created_at DESC, id LIMIT 100',
      values: [userId],
    });
    await db.query({ name: 'bench_page_total', text: 'SELECT count(*) FROM sessions WHERE user_id = $1 AND archived = false', values: [userId] });
    return performance.now() - start;
  };
}

await buildStaleServices();
console.log(`load average at the start: ${loadAverage()} (the machine is shared with other work: compare the read with its SQL, not across runs)`);
const relay = await startRelay({ name: 'read-costs', readyTimeoutMs: 180_000 });
const db = new pg.Client({ connectionString: relay.databaseUrls.session });
await db.connect();
const questions = new pg.Client({ connectionString: relay.databaseUrls.question });
await questions.connect();
const subscriptions = new pg.Client({ connectionString: relay.databaseUrls.subscription });
await subscriptions.connect();
const lines = ['| read | data | read p50 | bare SQL p50 | ratio | answer |', '|---|---|---|---|---|---|'];
try {
  const agent = await relay.createExternalSession('the reading agent');
  const conversation = await relay.createExternalSession('a long conversation');
  let sessions = 2;
  let asks = 0;
  let subscribed = 0;
  let messages = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM messages WHERE session_id = $1', [conversation.id])).rows[0]!.n;
  for (const size of SIZES) {
    // Seeded as the service writes them: sessions of the user, messages of one conversation, in order.
    await db.query(
      `INSERT INTO sessions (id, user_id, title, provider, model, origin, state, cwd, created_at, last_activity_at)
       SELECT 'bench-s-' || n, $1, 'Seeded session ' || n, 'script', 'script-1', 'hosted', 'idle', '/tmp', now() - n * interval '1 minute', now() - n * interval '1 minute'
       FROM generate_series($2::int, $3::int) AS n`,
      [relay.userId, sessions, size - 1],
    );
    sessions = size;
    await db.query(
      `INSERT INTO messages (id, session_id, role, text, created_at)
       SELECT 'bench-m-' || n, $1, CASE WHEN n % 2 = 0 THEN 'user' ELSE 'assistant' END, repeat('A line of the conversation. ', 8), now() - (100000 - n) * interval '1 second'
       FROM generate_series($2::int, $3::int) AS n`,
      [conversation.id, messages, size - 1],
    );
    await db.query('UPDATE sessions SET message_count = $2 WHERE id = $1', [conversation.id, size]);
    messages = size;
    await db.query('ANALYZE sessions; ANALYZE messages');
    await questions.query(
      `INSERT INTO asks (id, user_id, asking_session_id, about_session_id, question, created_at)
       SELECT 'bench-a-' || n, $1, $2, $2, 'Seeded question ' || n || '?', now() - (100000 - n) * interval '1 second'
       FROM generate_series($3::int, $4::int) AS n`,
      [relay.userId, agent.id, asks, size / 10 - 1],
    );
    asks = size / 10;
    await questions.query('ANALYZE asks');
    await subscriptions.query(
      `INSERT INTO subscriptions (id, user_id, watcher_session_id, scope, sessions, events, created_at)
       SELECT 'bench-sub-' || n, $1, $2, 'sessions', jsonb_build_array('bench-s-' || n), '["turn_end","error"]', now() - (100000 - n) * interval '1 second'
       FROM generate_series($3::int, $4::int) AS n`,
      [relay.userId, agent.id, subscribed, size / 10 - 1],
    );
    subscribed = size / 10;
    await subscriptions.query('ANALYZE subscriptions');

    // A client for each size: the SDK's client adds a listener to one AbortSignal at every call (withMcpClient).
    const client = await mcpClient(relay.mcpUrl, agent.token);
    const listed: number[] = [];
    const list = await sideBySide(relayRead(client, { action: 'list_sessions', relay: 'this' }, listed), sqlPage(db, relay.userId));
    lines.push(
      `| \`list_sessions\` | ${size.toLocaleString('en')} sessions | ${fixed(list.read)} ms | ${fixed(list.sql)} ms | ${fixed(list.read / list.sql)}× | ${fixed(listed[0]! / 1024, 0)} KB |`,
    );
    const read: number[] = [];
    const last = await sideBySide(
      relayRead(client, { action: 'read_session', relay: 'this', session: conversation.id }, read),
      sqlRead(db, 'bench_last', 'SELECT * FROM messages WHERE session_id = $1 ORDER BY created_at DESC, seq DESC LIMIT 10', [conversation.id]),
    );
    lines.push(
      `| \`read_session\` (last 10) | ${size.toLocaleString('en')} messages | ${fixed(last.read)} ms | ${fixed(last.sql)} ms | ${fixed(last.read / last.sql)}× | ${fixed(read[0]! / 1024, 0)} KB |`,
    );
    const asked: number[] = [];
    const pending = await sideBySide(
      relayRead(client, { action: 'list_questions' }, asked),
      sqlRead(
        questions,
        'bench_asks',
        "SELECT * FROM asks WHERE asking_session_id = $1 AND (status = 'pending' OR ended_at > now() - interval '1 day') ORDER BY created_at DESC, id DESC LIMIT 500",
        [agent.id],
      ),
    );
    lines.push(
      `| \`list_questions\` | ${(size / 10).toLocaleString('en')} pending asks | ${fixed(pending.read)} ms | ${fixed(pending.sql)} ms | ${fixed(pending.read / pending.sql)}× | ${fixed(asked[0]! / 1024, 0)} KB |`,
    );
    const watched: number[] = [];
    const watching = await sideBySide(
      relayRead(client, { action: 'list_subscriptions' }, watched),
      sqlRead(
        subscriptions,
        'bench_subscriptions',
        "SELECT * FROM subscriptions WHERE watcher_session_id = $1 AND (ended_at IS NULL OR ended_at > now() - interval '1 hour') ORDER BY created_at",
        [agent.id],
      ),
    );
    lines.push(
      `| \`list_subscriptions\` | ${(size / 10).toLocaleString('en')} subscriptions | ${fixed(watching.read)} ms | ${fixed(watching.sql)} ms | ${fixed(watching.read / watching.sql)}× | ${fixed(watched[0]! / 1024, 0)} KB |`,
    );
    await client.close();
    console.log(`${size.toLocaleString('en')} done; load average ${loadAverage()}`);
  }
} finally {
  await subscriptions.end();
  await questions.end();
  await db.end();
  await relay.stop();
}
console.log(lines.join('\n'));
console.log(`load average at the end: ${loadAverage()}`);
process.exit(0);
