// Benchmark of the subscription service's pipeline (prints figures; it is not a test). Run from the repository root:
//   npx tsx bench/subscription-pipeline.bench.ts
// (needs the local PostgreSQL at 127.0.0.1:5432; starts its own nats-server). BENCH_EVENTS sets the event count,
// BENCH_REPLICAS the replica counts to measure (default "1,2"), BENCH_SUBSCRIPTIONS the subscriptions in the database.
//
// Each round measures, on the same nats-server and one after the other:
// - raw JetStream: publish → durable consumer, messages per second (the ceiling the pipeline sits on);
// - the pipeline with N replicas, each its own process (bench/pipeline/replica.ts): turn_ended events published on
//   SESSION_EVENTS, taken in batches by the real watch consumers (matching among all the subscriptions), stored per
//   watcher, planned by the real Planner, rendered, written to the outbox and published right after the commit as
//   deliver_wakeup, received by a consumer here. Throughput is events per second from the first publish to the last
//   wake-up; latency is per event from its publish to the wake-up that carries it, in a second phase paced at about
//   half the measured throughput: one paced stream, BENCH_LATENCY_WARM_UP events not counted, then BENCH_LATENCY_EVENTS
//   counted (the first events after the throughput phase still wait behind what it left, its wake-ups in flight and
//   PostgreSQL's after-work, and the pause while the bench waits for its last wake-up). CPU per event is read from /proc for each replica, for the PostgreSQL backends of
//   the benchmark's database and for nats-server, over the throughput phase: the work a cluster would have to spread.
//   With it, over the same phase, the work PostgreSQL is given per event, which load does not change: transactions
//   and rows written per table (pg_stat_database, pg_stat_user_tables, read once the backends reported them, ~11 s).
// At the end it prints the scaling curve (events/s and CPU per event per component for each replica count), what the
// two cores here allow at that cost, and what that work per event gives on a cluster where each part has cores of
// its own.
// The 30-second coalescing window and the hourly cap are overridden (0 s, no cap) so that the figures measure the
// pipeline rather than the rules' deliberate waits; the output says so.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { connectBus, consume, ensureStream, type Bus } from '@relay/bus';
import { SubscriptionCommands } from '@relay/proto/relay/bus-contracts';
import { TurnEnded } from '@relay/proto/relay/session/v1/events';
import { TurnStatus } from '@relay/proto/relay/session/v1/session';
import { createLogger } from '@relay/telemetry';
import { createTestDatabase, startNats, TEST_NATS_USER, type NatsServer } from '@relay/testing';
import { WATCH_CONSUMERS } from '../services/subscription/src/adapters/bus/watch-events-consumer.ts';
import { fixed, loadAverage, percentile } from './support/figures.ts';

const migrationsDir = fileURLToPath(new URL('../services/subscription/prisma/migrations', import.meta.url));
const replicaScript = fileURLToPath(new URL('./pipeline/replica.ts', import.meta.url));
const EVENTS = Number(process.env.BENCH_EVENTS ?? 2000);
const REPLICAS = (process.env.BENCH_REPLICAS ?? '1,2').split(',').map(Number);
const SUBSCRIPTIONS = Number(process.env.BENCH_SUBSCRIPTIONS ?? 10_000);
const LATENCY_EVENTS = Number(process.env.BENCH_LATENCY_EVENTS ?? 1000);
const LATENCY_WARM_UP = Number(process.env.BENCH_LATENCY_WARM_UP ?? 100);
const WATCHERS = 50;
const TICK_MS = 10; // USER_HZ = 100 on Linux
const logger = createLogger({ name: 'bench', level: 'silent' });

function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/** The nats-server listening on `port` (startNats does not say its pid). */
function natsPid(port: number): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (command[0]?.endsWith('nats-server') && command.includes(String(port))) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

/** CPU ms of the PostgreSQL backends serving `database`, by pid (backends of other work on the server are left out). */
async function backendCpu(admin: pg.Client, database: string): Promise<Map<number, number>> {
  const rows = (await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [database])).rows;
  return new Map(rows.map((row) => [row.pid, cpuMs(row.pid)]));
}

async function rawJetStream(nats: NatsServer): Promise<number> {
  const bus = await connectBus({ url: nats.url, name: 'bench-raw', logger, ...nats.credentials(TEST_NATS_USER) });
  await bus.jsm.streams.delete('BENCH').catch(() => undefined);
  await ensureStream(bus, { name: 'BENCH', subjects: ['bench.>'] });
  let seen = 0;
  let done!: () => void;
  const all = new Promise<void>((resolve) => (done = resolve));
  // Any payload as it is: the codec costs nothing, so the rate is JetStream's and the consumer's.
  const benchX = { subject: 'bench.x', stream: 'BENCH', codec: { fromJSON: (value: unknown) => value, toJSON: (value: unknown) => value } };
  const consumer = await consume(bus, { contracts: [benchX], durable: 'bench', logger, handler: async () => void (++seen === EVENTS && done()) });
  const start = performance.now();
  for (let i = 0; i < EVENTS; i++) await bus.js.publish('bench.x', JSON.stringify({ i }), { msgID: `m${i}` });
  await all;
  const rate = EVENTS / ((performance.now() - start) / 1000);
  await consumer.stop();
  await bus.close();
  return rate;
}

function startReplica(nats: NatsServer, databaseUrl: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []), '--import', 'tsx', replicaScript],
    {
      env: { ...process.env, DATABASE_URL: databaseUrl, ...nats.env(TEST_NATS_USER) },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`replica exited with ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => line === 'ready' && resolve(child));
  });
}

async function stopReplica(child: ChildProcess): Promise<void> {
  child.removeAllListeners('exit');
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

function turnEnded(i: number) {
  const w = i % WATCHERS;
  return TurnEnded.toJSON({
    eventId: `e${i}`,
    occurredAt: new Date(),
    sessionId: `worker-${w}`,
    userId: 'u1',
    turnId: `t${i}`,
    messageId: `m${i}`,
    status: TurnStatus.TURN_STATUS_DONE,
    text: `reply ${i}`,
    senderSessionId: '',
  });
}

/**
 * The benchmark's 50 watchers (each watching one worker session of user u1) among SUBSCRIPTIONS subscriptions: the
 * rest watch other sessions of u1 or belong to other users (a quarter of theirs to all sessions), so matching has to
 * find the right ones among them all.
 */
async function fillSubscriptions(db: pg.Client): Promise<void> {
  const rows: unknown[] = [];
  const base = { relay: '', exclude: [], events: ['turn_end', 'error', 'question_asked'], once: false, match: '', stalled_minutes: 0 };
  for (let w = 0; w < WATCHERS; w++) {
    rows.push({
      ...base,
      id: `sub-${w}`,
      user_id: 'u1',
      watcher_session_id: `watcher-${w}`,
      scope: 'sessions',
      sessions: [{ id: `worker-${w}`, title: `Worker ${w}` }],
    });
  }
  for (let i = WATCHERS; i < SUBSCRIPTIONS; i++) {
    const user = i % 2 === 0 ? 'u1' : `user-${i % 97}`;
    const scope = user !== 'u1' && i % 4 === 1 ? 'all' : 'sessions';
    const sessions =
      scope === 'all'
        ? []
        : [
            { id: `other-${i % 3000}`, title: 'Other' },
            { id: `other-${(i * 7) % 3000}`, title: 'Other' },
          ];
    rows.push({ ...base, id: `filler-${i}`, user_id: user, watcher_session_id: `filler-watcher-${Math.floor(i / 3)}`, scope, sessions });
  }
  await db.query(
    `INSERT INTO subscriptions (id, user_id, watcher_session_id, relay, scope, sessions, exclude, events, once, match, stalled_minutes, created_at)
     SELECT r.id, r.user_id, r.watcher_session_id, r.relay, r.scope, r.sessions, r.exclude, r.events, r.once, r.match, r.stalled_minutes, now()
       FROM jsonb_to_recordset($1::jsonb) AS r(id text, user_id text, watcher_session_id text, relay text, scope text, sessions jsonb, exclude jsonb, events jsonb, once boolean, match text, stalled_minutes int)`,
    [JSON.stringify(rows)],
  );
  await db.query('ANALYZE subscriptions');
}

type Result = {
  rate: number;
  p50: number;
  p99: number;
  /** The same over the paced events before those counted. */
  warmUp: { p50: number; p99: number };
  wakeUps: number;
  cpuMsPerEvent: { replicas: number; postgres: number; nats: number; bench: number };
  /** PostgreSQL's work per event over the throughput phase: transactions, and rows written by table. */
  perEvent: { transactions: number; rows: Map<string, { inserted: number; updated: number; hot: number; deleted: number }> };
};

// Backends report their counts when idle, at most once a second and at the latest after 10 s idle (PostgreSQL 15).
const STATS_REPORTED_MS = 11_000;

type DatabaseCounts = { transactions: number; tables: Map<string, { inserted: number; updated: number; hot: number; deleted: number }> };

/** The database's transactions and each table's rows written so far, as the backends have reported them. */
async function databaseCounts(db: pg.Client, database: string): Promise<DatabaseCounts> {
  const [transactions, tables] = await Promise.all([
    db.query<{ n: string }>('SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = $1', [database]),
    db.query<{ relname: string; ins: string; upd: string; hot: string; del: string }>(
      'SELECT relname, n_tup_ins AS ins, n_tup_upd AS upd, n_tup_hot_upd AS hot, n_tup_del AS del FROM pg_stat_user_tables',
    ),
  ]);
  return {
    transactions: Number(transactions.rows[0]?.n ?? 0),
    tables: new Map(
      tables.rows.map((row) => [row.relname, { inserted: Number(row.ins), updated: Number(row.upd), hot: Number(row.hot), deleted: Number(row.del) }]),
    ),
  };
}

async function pipeline(nats: NatsServer, replicas: number): Promise<Result> {
  const database = await createTestDatabase({ migrationsDir });
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  const filling = performance.now();
  await fillSubscriptions(admin);
  console.log(
    `${SUBSCRIPTIONS.toLocaleString('en')} subscriptions filled (one INSERT … SELECT, and ANALYZE) in ${fixed((performance.now() - filling) / 1000, 1)} s`,
  );
  // The fill's own counts are reported before the phase starts (once this backend is idle again).
  await admin.query('SELECT pg_stat_force_next_flush()');
  const publisher: Bus = await connectBus({ url: nats.url, name: 'bench-publisher', logger, ...nats.credentials(TEST_NATS_USER) });
  // Fresh streams per run, so each pipeline starts from nothing.
  for (const name of ['SESSION_EVENTS', 'QUESTION_EVENTS', 'SUBSCRIPTION_COMMANDS']) await publisher.jsm.streams.delete(name).catch(() => undefined);
  await ensureStream(publisher, { name: 'SESSION_EVENTS', subjects: ['relay.session.v1.>'] });
  await ensureStream(publisher, { name: 'QUESTION_EVENTS', subjects: ['relay.question.v1.>'] });
  await ensureStream(publisher, { name: 'SUBSCRIPTION_COMMANDS', subjects: ['relay.subscription.v1.>'] });
  const children = await Promise.all(Array.from({ length: replicas }, () => startReplica(nats, database.url)));
  // Every replica has its pull request in before the clock starts.
  const watch = WATCH_CONSUMERS[0];
  for (;;) {
    const info = await publisher.jsm.consumers.info(watch.wholeStream.name, watch.durable).catch(() => undefined);
    if (info !== undefined && info.num_waiting >= replicas) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  const publishedAt = new Map<string, number>();
  /** Each event's latency by its number (`e<n>`). */
  const latencies = new Map<number, number>();
  let delivered = 0;
  let wakeUps = 0;
  let target = 0;
  let reached: () => void = () => undefined;
  const wakeUpConsumer = await consume(publisher, {
    contracts: [SubscriptionCommands.DELIVER_WAKEUP],
    durable: 'bench-wakeups',
    logger,
    handler: async (message) => {
      const now = performance.now();
      wakeUps += 1;
      for (const id of message.data.sourceEventIds) {
        const at = publishedAt.get(id);
        if (at !== undefined) latencies.set(Number(id.slice(1)), now - at);
        delivered += 1;
      }
      if (delivered >= target) reached();
    },
  });
  const publish = async (from: number, to: number, gapMs: number) => {
    target = to;
    const all = new Promise<void>((resolve) => (reached = resolve));
    for (let i = from; i < to; i++) {
      publishedAt.set(`e${i}`, performance.now());
      await publisher.js.publish('relay.session.v1.turn_ended', JSON.stringify(turnEnded(i)), { msgID: `e${i}` });
      if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
    }
    await all;
  };

  const nats_ = natsPid(nats.port);
  const cpu = async () => ({
    replicas: children.reduce((sum, child) => sum + cpuMs(child.pid!), 0),
    postgres: await backendCpu(admin, database.name),
    nats: nats_ === undefined ? NaN : cpuMs(nats_),
    bench: cpuMs(process.pid),
  });
  const countsBefore = await databaseCounts(admin, database.name);
  const before = await cpu();
  const start = performance.now();
  await publish(0, EVENTS, 0);
  const rate = EVENTS / ((performance.now() - start) / 1000);
  const after = await cpu();
  await new Promise((resolve) => setTimeout(resolve, STATS_REPORTED_MS));
  const countsAfter = await databaseCounts(admin, database.name);
  let postgres = 0;
  for (const [pid, ms] of after.postgres) postgres += ms - (before.postgres.get(pid) ?? 0);
  const perEvent = (ms: number) => ms / EVENTS;
  const cpuMsPerEvent = {
    replicas: perEvent(after.replicas - before.replicas),
    postgres: perEvent(postgres),
    nats: perEvent(after.nats - before.nats),
    bench: perEvent(after.bench - before.bench),
  };
  // One paced stream: the uncounted events run straight into the counted ones, with no pause between them.
  const counted = EVENTS + LATENCY_WARM_UP;
  await publish(EVENTS, counted + LATENCY_EVENTS, 2000 / rate);
  const latenciesOf = (from: number, to: number) =>
    [...latencies]
      .filter(([n]) => n >= from && n < to)
      .map(([, ms]) => ms)
      .sort((a, b) => a - b);
  const warmUp = latenciesOf(EVENTS, counted);
  const sorted = latenciesOf(counted, counted + LATENCY_EVENTS);

  await wakeUpConsumer.stop();
  await Promise.all(children.map(stopReplica));
  await publisher.close();
  await admin.end();
  await database.drop();
  const rows = new Map(
    [...countsAfter.tables].map(([table, counts]) => {
      const was = countsBefore.tables.get(table) ?? { inserted: 0, updated: 0, hot: 0, deleted: 0 };
      return [
        table,
        {
          inserted: perEvent(counts.inserted - was.inserted),
          updated: perEvent(counts.updated - was.updated),
          hot: perEvent(counts.hot - was.hot),
          deleted: perEvent(counts.deleted - was.deleted),
        },
      ];
    }),
  );
  const perEventCounts = { transactions: perEvent(countsAfter.transactions - countsBefore.transactions), rows };
  return {
    rate,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    warmUp: { p50: percentile(warmUp, 50), p99: percentile(warmUp, 99) },
    wakeUps,
    cpuMsPerEvent,
    perEvent: perEventCounts,
  };
}

/** "watcher_events 1.00 ins + 1.00 upd (0.00 HOT)" for each table written, the busiest first. */
function rowsWritten(rows: Result['perEvent']['rows']): string {
  return [...rows]
    .filter(([, counts]) => counts.inserted + counts.updated + counts.deleted >= 0.005)
    .sort(([, a], [, b]) => b.inserted + b.updated + b.deleted - (a.inserted + a.updated + a.deleted))
    .map(([table, counts]) => {
      const parts = [
        ...(counts.inserted >= 0.005 ? [`${fixed(counts.inserted, 2)} ins`] : []),
        ...(counts.updated >= 0.005 ? [`${fixed(counts.updated, 2)} upd (${fixed(counts.hot, 2)} HOT)`] : []),
        ...(counts.deleted >= 0.005 ? [`${fixed(counts.deleted, 2)} del`] : []),
      ];
      return `${table} ${parts.join(' + ')}`;
    })
    .join(', ');
}

const nats = await startNats();
const cores = (await import('node:os')).availableParallelism();
const results: { replicas: number; raw: number; result: Result }[] = [];
try {
  console.log(
    `subscription pipeline benchmark: ${EVENTS} events over ${WATCHERS} watchers (each watches one session) among ${SUBSCRIPTIONS} subscriptions, latency from ${LATENCY_EVENTS} paced events after ${LATENCY_WARM_UP} not counted`,
  );
  console.log('overrides: coalescing window 0 s (the spec has 30 s) and no hourly cap, so the figures measure the pipeline, not its deliberate waits');
  console.log(`cores: ${cores}; replicas run as processes of their own; load average at the start ${loadAverage()}`);
  for (const replicas of REPLICAS) {
    const raw = await rawJetStream(nats);
    const result = await pipeline(nats, replicas);
    results.push({ replicas, raw, result });
    const c = result.cpuMsPerEvent;
    console.log(
      `${replicas} replica${replicas === 1 ? ' ' : 's'}: raw JetStream ${fixed(raw, 0)} msg/s | pipeline ${fixed(result.rate, 0)} events/s (${fixed((100 * result.rate) / raw, 0)} % of raw), ` +
        `${result.wakeUps} wake-ups | event→wake-up p50 ${fixed(result.p50, 0)} ms, p99 ${fixed(result.p99, 0)} ms (the ${LATENCY_WARM_UP} before: ${fixed(result.warmUp.p50, 0)} / ${fixed(result.warmUp.p99, 0)} ms) | ` +
        `CPU ms per event: replicas ${fixed(c.replicas, 2)}, PostgreSQL ${fixed(c.postgres, 2)}, nats-server ${fixed(c.nats, 2)} (the benchmark's publisher and consumer ${fixed(c.bench, 2)})`,
    );
    console.log(`  PostgreSQL per event: ${fixed(result.perEvent.transactions, 3)} transactions; rows written ${rowsWritten(result.perEvent.rows)}`);
  }
  console.log(`load average at the end ${loadAverage()}`);
  printCurve();
} finally {
  await nats.stop();
}
process.exit(0);

/**
 * The scaling curve as measured here, then what the work per event gives where each part has cores of its own: a
 * replica's share is spread over the replicas, PostgreSQL's and nats-server's are not (one primary, one server).
 */
function printCurve(): void {
  const one = results[0]?.result.rate ?? NaN;
  const rows = results.map(({ replicas, raw, result }) => {
    const c = result.cpuMsPerEvent;
    const total = c.replicas + c.postgres + c.nats;
    return (
      `| ${replicas} | ${fixed(raw, 0)} msg/s | ${fixed(result.rate, 0)} events/s | ${fixed((100 * result.rate) / raw, 0)} % | ${fixed(result.rate / one, 2)}× | ${fixed(result.p50, 0)} / ${fixed(result.p99, 0)} ms | ` +
      `${fixed(c.replicas, 2)} + ${fixed(c.postgres, 2)} + ${fixed(c.nats, 2)} = ${fixed(total, 2)} ms | ${fixed((1000 * cores) / total, 0)} events/s | ${fixed(result.perEvent.transactions, 3)} |`
    );
  });
  console.log(
    [
      '',
      `| replicas | raw JetStream | pipeline | ratio | vs 1 replica | latency p50 / p99 | CPU per event: replicas + PostgreSQL + nats-server | ${cores} cores allow | PostgreSQL transactions per event |`,
      '|---|---|---|---|---|---|---|---|---|',
      ...rows,
    ].join('\n'),
  );
  // The cluster figures take the cheapest measured cost per part (more replicas add coordination, not less work).
  const least = (part: keyof Result['cpuMsPerEvent']) => Math.min(...results.map(({ result }) => result.cpuMsPerEvent[part]));
  const perCore = { replica: 1000 / least('replicas'), postgres: 1000 / least('postgres'), nats: 1000 / least('nats') };
  console.log(
    `\nOn a cluster (each part on cores of its own, at this work per event): one replica core carries ${fixed(perCore.replica, 0)} events/s, ` +
      `one PostgreSQL core ${fixed(perCore.postgres, 0)}, one nats-server core ${fixed(perCore.nats, 0)}; here all of them and the benchmark's ` +
      `publisher and consumer share ${cores} cores, so a second replica can only take what the others leave.`,
  );
  const curve = [1, 2, 4, 8].map((n) => {
    const rate = n * perCore.replica;
    return `| ${n} | ${fixed(rate, 0)} events/s | ${fixed(rate / perCore.postgres, 1)} | ${fixed(rate / perCore.nats, 1)} |`;
  });
  console.log(
    ['', '| replicas, a core each | events/s they carry | PostgreSQL cores that needs | nats-server cores |', '|---|---|---|---|', ...curve].join('\n'),
  );
}
