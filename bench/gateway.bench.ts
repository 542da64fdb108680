// Benchmark of the gateway path (prints figures; it is not a test). Run from the repository root:
//   npx tsx bench/gateway.bench.ts
// (needs the local PostgreSQL at 127.0.0.1:5432; starts a whole relay of its own with test/harness/relay.ts,
// rebuilding stale service bundles first, and the bare anchor, bench/anchor/echo-server.ts, as its own process).
//
// relay_tool's reads through the real relay — list_sessions, read_session (a script session's two messages) and
// relay_info — against the anchor's one `echo` tool (Fastify + the MCP SDK's server, stateless, nothing behind it),
// called by the same MCP SDK client. The two are measured side by side, so that a machine whose speed moves from one
// minute to the next (these VMs' does, by 2–3×) weighs on both alike. Each round measures, for both:
// - sequential: one client, one call at a time, p50 and p99 per action, a call to each side in turn (the relay
//   first, then the anchor first, and so on);
// - 16 clients: 16 MCP clients calling list_sessions (the anchor: echo) at once, calls per second, in four bursts
//   per side taken in turn the same way;
// - 50 clients: the same with 50, calls per second, p50/p99 and the calls that failed (thrown, or ok: false);
// - CPU per sequential list_sessions call of each service process (from /proc, 10 ms ticks), and the relay's whole
//   (its services and PostgreSQL backends) as a multiple of the anchor's.
// After the rounds, the relay alone: PostgreSQL transactions per call of each action in each service's database
// (pg_stat_database, read from the `postgres` database; a statement outside a transaction is one), over
// BENCH_COUNT_CALLS sequential calls, each count read after the backends reported theirs (~11 s), less what the relay
// does meanwhile with no call in flight (measured first: its loops, and the 50 clients' GET /mcp streams).
// The relay's agents are external sessions (POST /api/v1/sessions {"external": true}), so each call also reads
// the session's pending note, as every external client's call does.
//
// The relay's CPU per call counts its PostgreSQL backends too (`postgres`: those connected to its databases, from /proc,
// as PostgreSQL runs on this machine): their parsing, planning and running of the statements is the relay's work.
//
//   BENCH_WARM_UP_ROUNDS    whole rounds run first and printed but not counted (default 1): the first round of a
//                           fresh relay and anchor runs on code V8 has not optimised yet, and was the slowest
//   BENCH_ROUNDS            alternating rounds (default 3)
//   BENCH_CALLS             sequential calls per action per round (default 200)
//   BENCH_CONCURRENT_CALLS  calls per side and round with 16 clients, over the four bursts (default 800)
//   BENCH_CROWD_CALLS       calls per side and round with 50 clients, over the four bursts (default 1000)
//   BENCH_COUNT_CALLS       calls per action whose transactions are counted (default 100; 0 skips the count)
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import pg from 'pg';
import { STATEFUL, startRelay, type Relay } from '../test/harness/relay.ts';
import { countCpu, fixed, inTurn, loadAverage, median, percentile } from './support/figures.ts';
import { externalAgentTokens, mcpClient, readableSession, relayBackends, relayCall, relayReads, type Call } from './support/relay-agents.ts';

/** scripts/build.mjs (no type declarations): rebuilds the service bundles older than their sources. */
const { buildStaleServices } = (await import(new URL('../scripts/build.mjs', import.meta.url).href)) as { buildStaleServices(): Promise<void> };

const WARM_UP_ROUNDS = Number(process.env.BENCH_WARM_UP_ROUNDS ?? 1);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CALLS = Number(process.env.BENCH_CALLS ?? 200);
const CONCURRENT_CALLS = Number(process.env.BENCH_CONCURRENT_CALLS ?? 800);
const CROWD_CALLS = Number(process.env.BENCH_CROWD_CALLS ?? 1000);
const COUNT_CALLS = Number(process.env.BENCH_COUNT_CALLS ?? 100);
/** How long a backend may keep its statistics before reporting them (PostgreSQL's idle interval is 10 s). */
const STATS_REPORTED_MS = 11_000;
const CONCURRENT = 16;
const CROWD = 50;
const WARM_UP = 20;
/** The bursts each concurrent figure is measured in, each side's in turn. */
const BURSTS = 4;

const TARGETS = ['relay', 'anchor'] as const;
type Target = (typeof TARGETS)[number];
interface Figures {
  seq: Record<string, { p50: number; p99: number }>;
  concurrentRate: number;
  crowd: { rate: number; p50: number; p99: number; errors: number };
  cpuMsPerCall: Record<string, number>;
}

function echoCall(client: Client): Call {
  return async () => {
    const result = await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
    return result.isError !== true;
  };
}

/**
 * Runs each side's call `count` times, one call of each side in turn (inTurn), so that both meet the machine as it is
 * in the same milliseconds; each side's latencies in ms, sorted.
 */
async function sequential(calls: Record<Target, Call>, count: number): Promise<Record<Target, number[]>> {
  for (let i = 0; i < WARM_UP; i++) for (const call of Object.values(calls)) await call();
  const latencies: Record<Target, number[]> = { relay: [], anchor: [] };
  for (let i = 0; i < count; i++) {
    for (const target of inTurn(TARGETS, i)) {
      const start = performance.now();
      if (!(await calls[target]())) throw new Error(`a sequential call to the ${target} failed`);
      latencies[target].push(performance.now() - start);
    }
  }
  for (const target of TARGETS) latencies[target].sort((a, b) => a - b);
  return latencies;
}

/**
 * Each side's clients share `total` calls, all at once, in BURSTS bursts taken in turn (inTurn), so that a minute when
 * the machine is slower weighs on both; each side's rate over its own bursts' time, latencies and errors.
 */
async function concurrent(clients: Record<Target, Call[]>, total: number): Promise<Record<Target, Figures['crowd']>> {
  const spent = { relay: { ms: 0, latencies: [] as number[], errors: 0 }, anchor: { ms: 0, latencies: [] as number[], errors: 0 } };
  const perBurst = Math.ceil(total / BURSTS);
  for (let burst = 0; burst < BURSTS; burst++) {
    for (const target of inTurn(TARGETS, burst)) {
      const side = spent[target];
      let next = 0;
      const start = performance.now();
      await Promise.all(
        clients[target].map(async (call) => {
          while (next < perBurst) {
            next += 1;
            const began = performance.now();
            const ok = await call().catch(() => false);
            side.latencies.push(performance.now() - began);
            if (!ok) side.errors += 1;
          }
        }),
      );
      side.ms += performance.now() - start;
    }
  }
  const figures = (side: (typeof spent)[Target]) => {
    const sorted = side.latencies.sort((a, b) => a - b);
    return { rate: (1000 * sorted.length) / side.ms, p50: percentile(sorted, 50), p99: percentile(sorted, 99), errors: side.errors };
  };
  return { relay: figures(spent.relay), anchor: figures(spent.anchor) };
}

function startAnchor(): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./anchor/echo-server.ts', import.meta.url))], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the anchor exited with ${code}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      const url = /listening (\S+)/.exec(chunk.toString('utf8'))?.[1];
      if (url === undefined) return;
      child.removeAllListeners('exit');
      resolve({
        url,
        child,
        stop: () => new Promise<void>((done) => (child.exitCode !== null ? done() : (child.once('exit', () => done()), child.kill('SIGTERM')))),
      });
    });
  });
}

interface Side {
  /** The sequential calls by name. */
  seq: Record<string, Call>;
  concurrent: Call[];
  crowd: Call[];
  /** The processes whose CPU is counted, by name. */
  pids: Record<string, number | undefined>;
  /** The PostgreSQL backends serving the side's databases now (their CPU is counted as `postgres`). */
  backends?: () => Promise<number[]>;
}

/** What to close before the process ends. */
const stopping: (() => Promise<void>)[] = [];

async function relaySide(relay: Relay): Promise<Side> {
  const readId = await readableSession(relay);
  const tokens = await externalAgentTokens(relay, CONCURRENT);
  const clients = await Promise.all(Array.from({ length: CROWD }, (_, i) => mcpClient(relay.mcpUrl, tokens[i % tokens.length])));
  const backends = await relayBackends(relay);
  stopping.push(() => backends.close());
  return {
    seq: relayReads(clients[0]!, readId),
    concurrent: clients.slice(0, CONCURRENT).map((client) => relayCall(client, { action: 'list_sessions', relay: 'this' })),
    crowd: clients.map((client) => relayCall(client, { action: 'list_sessions', relay: 'this' })),
    pids: Object.fromEntries((['gateway', ...STATEFUL] as const).map((name) => [name, relay.services[name].pid])),
    backends: backends.pids,
  };
}

async function anchorSide(url: string, pid: number | undefined): Promise<Side> {
  const clients = await Promise.all(Array.from({ length: CROWD }, () => mcpClient(url)));
  const echo = echoCall(clients[0]!);
  return {
    seq: { list_sessions: echo, read_session: echo, relay_info: echo },
    concurrent: clients.slice(0, CONCURRENT).map(echoCall),
    crowd: clients.map(echoCall),
    pids: { anchor: pid },
  };
}

/** One round: every figure of both sides, measured side by side (sequential() and concurrent()). */
async function measure(sides: Record<Target, Side>): Promise<Record<Target, Figures>> {
  const figures: Record<Target, Figures> = {
    relay: { seq: {}, concurrentRate: 0, crowd: { rate: 0, p50: 0, p99: 0, errors: 0 }, cpuMsPerCall: {} },
    anchor: { seq: {}, concurrentRate: 0, crowd: { rate: 0, p50: 0, p99: 0, errors: 0 }, cpuMsPerCall: {} },
  };
  for (const name of Object.keys(sides.relay.seq)) {
    const cpu = { relay: await countCpu(sides.relay.pids, sides.relay.backends), anchor: await countCpu(sides.anchor.pids) };
    const latencies = await sequential({ relay: sides.relay.seq[name]!, anchor: sides.anchor.seq[name]! }, CALLS);
    for (const target of TARGETS) {
      figures[target].seq[name] = { p50: percentile(latencies[target], 50), p99: percentile(latencies[target], 99) };
      if (name === 'list_sessions') figures[target].cpuMsPerCall = await cpu[target](CALLS + WARM_UP);
    }
  }
  const sixteen = await concurrent({ relay: sides.relay.concurrent, anchor: sides.anchor.concurrent }, CONCURRENT_CALLS);
  const crowd = await concurrent({ relay: sides.relay.crowd, anchor: sides.anchor.crowd }, CROWD_CALLS);
  for (const target of TARGETS) {
    figures[target].concurrentRate = sixteen[target].rate;
    figures[target].crowd = crowd[target];
  }
  return figures;
}

function printRound(round: string, relay: Figures, anchor: Figures): void {
  const lines = [`${round}:`];
  for (const name of Object.keys(relay.seq)) {
    const r = relay.seq[name]!;
    const a = anchor.seq[name]!;
    lines.push(
      `  ${name.padEnd(14)} p50 ${fixed(r.p50)} ms (anchor ${fixed(a.p50)}) ${fixed(r.p50 / a.p50)}×   p99 ${fixed(r.p99)} ms (anchor ${fixed(a.p99)}) ${fixed(r.p99 / a.p99)}×`,
    );
  }
  lines.push(
    `  ${CONCURRENT} clients     ${fixed(relay.concurrentRate, 0)} calls/s (anchor ${fixed(anchor.concurrentRate, 0)}) ${fixed((100 * relay.concurrentRate) / anchor.concurrentRate, 0)} %`,
  );
  lines.push(
    `  ${CROWD} clients     ${fixed(relay.crowd.rate, 0)} calls/s, p50 ${fixed(relay.crowd.p50)} ms, p99 ${fixed(relay.crowd.p99)} ms, ${relay.crowd.errors} errors (anchor ${fixed(anchor.crowd.rate, 0)} calls/s, p99 ${fixed(anchor.crowd.p99)} ms, ${anchor.crowd.errors} errors)`,
  );
  const cpu = Object.entries({ ...relay.cpuMsPerCall, ...anchor.cpuMsPerCall }).map(([service, ms]) => `${service} ${fixed(ms, 2)}`);
  lines.push(`  CPU ms per sequential list_sessions call: ${cpu.join(', ')} (the relay ${fixed(relayCpuMs(relay) / anchor.cpuMsPerCall.anchor!)}× the anchor)`);
  console.log(lines.join('\n'));
}

/** The relay's CPU per sequential list_sessions call: every service and its PostgreSQL backends. */
const relayCpuMs = (figures: Figures) => Object.values(figures.cpuMsPerCall).reduce((sum, ms) => sum + ms, 0);

function printSummary(rounds: { relay: Figures; anchor: Figures }[]): void {
  const of = (pick: (f: Figures) => number, target: Target) => median(rounds.map((round) => pick(round[target])));
  const row = (figure: string, pick: (f: Figures) => number, unit: string, asShare = false) => {
    const relay = of(pick, 'relay');
    const anchor = of(pick, 'anchor');
    const ratio = asShare ? `${fixed((100 * relay) / anchor, 0)} %` : `${fixed(relay / anchor)}×`;
    return `| ${figure} | ${fixed(relay, unit === 'calls/s' ? 0 : 1)} ${unit} | ${fixed(anchor, unit === 'calls/s' ? 0 : 1)} ${unit} | ${ratio} |`;
  };
  const lines = [
    `\nmedian of ${rounds.length} rounds (sequential: ${CALLS} calls per action per round; ${CONCURRENT} clients: ${CONCURRENT_CALLS} calls; ${CROWD} clients: ${CROWD_CALLS} calls):`,
    '| figure | relay | bare anchor | ratio |',
    '|---|---|---|---|',
  ];
  for (const name of Object.keys(rounds[0]!.relay.seq)) {
    lines.push(row(`\`${name}\` sequential p50`, (f) => f.seq[name]!.p50, 'ms'));
    lines.push(row(`\`${name}\` sequential p99`, (f) => f.seq[name]!.p99, 'ms'));
  }
  lines.push(row(`\`list_sessions\`, ${CONCURRENT} concurrent clients`, (f) => f.concurrentRate, 'calls/s', true));
  lines.push(row(`\`list_sessions\`, ${CROWD} clients`, (f) => f.crowd.rate, 'calls/s', true));
  lines.push(row(`\`list_sessions\`, ${CROWD} clients p99`, (f) => f.crowd.p99, 'ms'));
  const errors = rounds.reduce((sum, round) => sum + round.relay.crowd.errors, 0);
  lines.push(`relay errors with ${CROWD} clients, all rounds: ${errors}`);
  const services = Object.keys(rounds[0]!.relay.cpuMsPerCall);
  lines.push(
    `CPU ms per list_sessions call (median): ${services
      .map(
        (s) =>
          `${s} ${fixed(
            of((f) => f.cpuMsPerCall[s]!, 'relay'),
            2,
          )}`,
      )
      .join(', ')}; anchor ${fixed(
      of((f) => f.cpuMsPerCall.anchor!, 'anchor'),
      2,
    )}`,
  );
  const multiples = rounds.map((round) => relayCpuMs(round.relay) / round.anchor.cpuMsPerCall.anchor!);
  lines.push(
    `the relay's CPU per list_sessions call (every service and postgres) as a multiple of the anchor's, per round: ${multiples.map((m) => `${fixed(m)}×`).join(', ')}; median ${fixed(median(multiples))}×`,
  );
  console.log(lines.join('\n'));
}

/**
 * PostgreSQL transactions per call of each sequential action, in each stateful service's database. The services'
 * own background work (a transaction a second or less at rest) is counted too, spread over the calls.
 */
async function transactionsPerCall(relay: Relay, side: Side): Promise<void> {
  const names = Object.fromEntries(STATEFUL.map((service) => [service, new URL(relay.databaseUrls[service]).pathname.slice(1)]));
  const server = new URL(relay.databaseUrls.session);
  server.pathname = '/postgres';
  const stats = new pg.Client({ connectionString: server.toString() });
  await stats.connect();
  /** The transactions so far by service, once the backends reported theirs, and when they were read (ms). */
  const read = async (): Promise<{ at: number; n: Record<string, number> }> => {
    await new Promise((resolve) => setTimeout(resolve, STATS_REPORTED_MS));
    const { rows } = await stats.query<{ datname: string; n: string }>(
      'SELECT datname, xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = ANY($1)',
      [Object.values(names)],
    );
    return {
      at: performance.now(),
      n: Object.fromEntries(STATEFUL.map((service) => [service, Number(rows.find((row) => row.datname === names[service])?.n)])),
    };
  };
  try {
    // What the relay does with no call in flight (its loops, and every client's GET /mcp stream looking for pending
    // messages every 2 s), per ms, is taken off each count.
    const quietFrom = await read();
    const quietTo = await read();
    const quietPerMs = (service: string) => (quietTo.n[service]! - quietFrom.n[service]!) / (quietTo.at - quietFrom.at);
    console.log(
      `\nPostgreSQL transactions per call (${COUNT_CALLS} sequential calls each; with no call in flight: ${STATEFUL.map((service) => `${service} ${fixed(quietPerMs(service) * 1000, 2)}/s`).join(', ')}, taken off):`,
    );
    for (const [name, call] of Object.entries(side.seq)) {
      const before = await read();
      for (let i = 0; i < COUNT_CALLS; i++) if (!(await call())) throw new Error(`a counted ${name} call failed`);
      const after = await read();
      const perCall = (service: string) => (after.n[service]! - before.n[service]! - quietPerMs(service) * (after.at - before.at)) / COUNT_CALLS;
      console.log(`  ${name.padEnd(14)} ${STATEFUL.map((service) => `${service} ${fixed(perCall(service), 2)}`).join(', ')}`);
    }
  } finally {
    await stats.end();
  }
}

const startedAt = performance.now();
const elapsed = () => `${fixed((performance.now() - startedAt) / 1000)} s`;
await buildStaleServices();
console.log(`service bundles up to date (${elapsed()}); starting the relay and the anchor…`);
const anchor = await startAnchor();
const relay = await startRelay({ name: 'bench', readyTimeoutMs: 180_000 });
try {
  const sides = { relay: await relaySide(relay), anchor: await anchorSide(anchor.url, anchor.child.pid) };
  console.log(`ready to measure (${elapsed()}); load average ${loadAverage()}`);
  const rounds: { relay: Figures; anchor: Figures }[] = [];
  for (let round = 1 - WARM_UP_ROUNDS; round <= ROUNDS; round++) {
    const figures = await measure(sides);
    if (round > 0) rounds.push(figures);
    printRound(round > 0 ? `round ${round}` : 'warm-up round (not counted)', figures.relay, figures.anchor);
  }
  printSummary(rounds);
  console.log(`load average at the end: ${loadAverage()}`);
  if (COUNT_CALLS > 0) await transactionsPerCall(relay, sides.relay);
} finally {
  await Promise.all(stopping.map((stop) => stop()));
  await relay.stop();
  await anchor.stop();
}
process.exit(0);
