// Benchmark of fair shares between users (prints figures; it is not a test). Run from the repository root:
//   npx tsx bench/fairness.bench.ts
// (needs the local PostgreSQL at 127.0.0.1:5432; starts relays of its own with test/harness/relay.ts, rebuilding
// stale service bundles first).
//
// Two users of one relay: the other user's agent calls list_sessions one call at a time, first with the relay idle,
// then while the busy user's 50 MCP clients (16 external sessions) call list_sessions as fast as they are answered.
// The burst's clients run in a process of their own, as the busy user's agents do on their own machines: in the
// timing process their answers would queue in its event loop before the other user's, and its p99 would time the
// bench. It prints the other user's p50 and p99 idle and under the burst, their ratio (the goal: within 2×), the
// burst's rate and its refusals (REMOTE_RELAY_CALL_LIMIT), and each process's share of a core under the burst (the
// bench's two, the other user's client and the burst's 50, beside the relay's), on a relay with the bounds off (RELAY_CALLS_* set higher than the burst
// can reach), on one whose busy user keeps their whole bound beside the other user (RELAY_CALLS_PER_USER_SHARED=4,
// the bound before it was shared) and on one with the default bounds (docs/relay-tool.md, Fair shares between users).
// Each mode runs BENCH_ROUNDS rounds, each idle then under the burst, so both meet the machine in the same minutes.
//
//   BENCH_ROUNDS   rounds per mode (default 3)
//   BENCH_CALLS    the other user's sequential calls, idle and under the burst, per round (default 200)
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { signIn, startRelay, type Relay } from '../test/harness/relay.ts';
import { cpuBetween, cpuMs, cpuOf, fixed, loadAverage, median, percentile } from './support/figures.ts';
import { externalAgentTokens, mcpClient, relayBackends } from './support/relay-agents.ts';

/** scripts/build.mjs (no type declarations): rebuilds the service bundles older than their sources. */
const { buildStaleServices } = (await import(new URL('../scripts/build.mjs', import.meta.url).href)) as { buildStaleServices(): Promise<void> };

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CALLS = Number(process.env.BENCH_CALLS ?? 200);
const BURST_CLIENTS = 50;
const BURST_SESSIONS = 16;
/** The other user's sessions, and the busy user's besides its agents': what each list_sessions lists. */
const LISTED_SESSIONS = 15;
const WARM_UP = 20;
/** Bounds no burst of this bench reaches: the gate is there, and never holds a call back. */
const BOUNDS_OFF = {
  RELAY_CALLS_PER_USER: '100000',
  RELAY_CALLS_PER_USER_SHARED: '100000',
  RELAY_CALLS_QUEUED_PER_USER: '100000',
  RELAY_CALLS_AT_WORK: '100000',
};
/** The default bounds but a user's whole bound whoever else is present, as before the bound was shared. */
const BOUND_NOT_SHARED = { RELAY_CALLS_PER_USER_SHARED: '4' };

/** What a list_sessions call answered: ok, refused for the bound, or another failure. */
async function listSessions(client: Client): Promise<'ok' | 'limit' | 'failed'> {
  try {
    const result = await client.callTool({ name: 'relay_tool', arguments: { action: 'list_sessions', relay: 'this' } });
    const text = (result.content as { text?: string }[] | undefined)?.[0]?.text ?? '';
    const answer = JSON.parse(text) as { ok?: boolean; code?: string };
    if (answer.ok === true) return 'ok';
    return answer.code === 'REMOTE_RELAY_CALL_LIMIT' ? 'limit' : 'failed';
  } catch {
    return 'failed';
  }
}

/** The other user's `count` sequential calls' latencies in ms, sorted. */
async function sequential(client: Client, count: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    if ((await listSessions(client)) !== 'ok') throw new Error("the other user's call failed");
    latencies.push(performance.now() - start);
  }
  return latencies.sort((a, b) => a - b);
}

interface Round {
  idle: { p50: number; p99: number };
  busy: { p50: number; p99: number };
  burst: { rate: number; limited: number; failed: number };
  /** Each process's CPU while the other user's calls were timed under the burst, in % of one core. */
  cores: Record<'gateway' | 'session' | 'postgres' | 'other' | 'burst', number>;
}

/** What the burst's process answers when it stops: its calls by outcome and how long it called. */
type Tally = Record<'ok' | 'limit' | 'failed', number> & { seconds: number };

/** What a round reads the CPU of: the gateway, the session service, the bench's two processes and the relay's PostgreSQL backends. */
interface Processes {
  pids: Record<'gateway' | 'session' | 'other' | 'burst', number | undefined>;
  backends(): Promise<number[]>;
}

/**
 * The burst's process: BURST_CLIENTS clients over `tokens`, each calling list_sessions as fast as it is answered from
 * a 'start' message to a 'stop', which it answers with its Tally; 'close' ends it.
 */
async function burstProcess(url: string, tokens: string[]): Promise<void> {
  const clients = await Promise.all(Array.from({ length: BURST_CLIENTS }, (_, i) => mcpClient(url, tokens[i % tokens.length])));
  let stop = false;
  let running: Promise<Tally> | undefined;
  process.on('message', (message) => {
    if (message === 'start') {
      stop = false;
      const tally = { ok: 0, limit: 0, failed: 0 };
      const started = performance.now();
      running = Promise.all(
        clients.map(async (client) => {
          while (!stop) tally[await listSessions(client)] += 1;
        }),
      ).then(() => ({ ...tally, seconds: (performance.now() - started) / 1000 }));
    } else if (message === 'stop') {
      stop = true;
      void running!.then((tally) => process.send!(tally));
    } else if (message === 'close') {
      void Promise.all(clients.map((client) => client.close())).then(() => process.exit(0));
    }
  });
  process.send!('ready');
}

/** The burst's process for `tokens`, once its clients are connected. */
async function startBurst(url: string, tokens: string[]): Promise<ChildProcess> {
  const child = fork(fileURLToPath(import.meta.url), ['burst', url, JSON.stringify(tokens)], { execArgv: ['--import', 'tsx'] });
  const [message] = (await once(child, 'message')) as [unknown];
  if (message !== 'ready') throw new Error(`the burst's process answered ${JSON.stringify(message)}`);
  return child;
}

/** One round: the other user's calls idle, then under the burst; the burst's clients call until those are done. */
async function round(other: Client, burst: ChildProcess, processes: Processes): Promise<Round> {
  const idle = await sequential(other, CALLS);
  burst.send('start');
  // The burst reaches its pace before the other user's calls are timed.
  await sequential(other, WARM_UP);
  const cpuBefore = Object.fromEntries(Object.entries(processes.pids).map(([name, pid]) => [name, cpuMs(pid)]));
  const backendsBefore = cpuOf(await processes.backends());
  const timed = performance.now();
  const busy = await sequential(other, CALLS);
  const busyMs = performance.now() - timed;
  const share = (name: keyof Processes['pids']) => (100 * (cpuMs(processes.pids[name]) - cpuBefore[name]!)) / busyMs;
  const cores = {
    gateway: share('gateway'),
    session: share('session'),
    other: share('other'),
    burst: share('burst'),
    postgres: (100 * cpuBetween(backendsBefore, cpuOf(await processes.backends()))) / busyMs,
  };
  burst.send('stop');
  const [tally] = (await once(burst, 'message')) as [Tally];
  return {
    idle: { p50: percentile(idle, 50), p99: percentile(idle, 99) },
    busy: { p50: percentile(busy, 50), p99: percentile(busy, 99) },
    burst: { rate: tally.ok / tally.seconds, limited: tally.limit, failed: tally.failed },
    cores,
  };
}

/** A relay with `env`, its two users and their clients; each round printed, the median of the rounds answered. */
async function measureMode(mode: string, env: Record<string, string>): Promise<Round> {
  const relay: Relay = await startRelay({ name: 'fairness', readyTimeoutMs: 180_000, env });
  let other: Client | undefined;
  let burst: ChildProcess | undefined;
  const backends = await relayBackends(relay);
  try {
    // The relay's first user is the other user (an admin, as on a team relay); the busy one a member.
    for (let i = 0; i < LISTED_SESSIONS; i++) await relay.createExternalSession(`the other user's session ${i}`);
    const [otherToken] = await externalAgentTokens(relay, 1);
    await signIn(relay, 'busy member', 'member');
    const burstTokens = await externalAgentTokens(relay, BURST_SESSIONS);
    other = await mcpClient(relay.mcpUrl, otherToken);
    burst = await startBurst(relay.mcpUrl, burstTokens);
    const processes: Processes = {
      pids: { gateway: relay.services.gateway.pid, session: relay.services.session.pid, other: process.pid, burst: burst.pid },
      backends: backends.pids,
    };
    await sequential(other, WARM_UP);
    const rounds: Round[] = [];
    for (let i = 1; i <= ROUNDS; i++) {
      const figures = await round(other, burst, processes);
      rounds.push(figures);
      console.log(
        `${mode}, round ${i}: the other user's p50 ${fixed(figures.idle.p50)} → ${fixed(figures.busy.p50)} ms (${fixed(figures.busy.p50 / figures.idle.p50)}×), ` +
          `p99 ${fixed(figures.idle.p99)} → ${fixed(figures.busy.p99)} ms (${fixed(figures.busy.p99 / figures.idle.p99)}×); ` +
          `the burst ${fixed(figures.burst.rate, 0)} calls/s, ${figures.burst.limited} refused for the bound, ${figures.burst.failed} failed; ` +
          `CPU under the burst, % of a core: gateway ${fixed(figures.cores.gateway, 0)}, session ${fixed(figures.cores.session, 0)}, ` +
          `PostgreSQL ${fixed(figures.cores.postgres, 0)}, the other user's client ${fixed(figures.cores.other, 0)}, the burst's clients ${fixed(figures.cores.burst, 0)}; load average ${loadAverage()}`,
      );
    }
    const of = (pick: (r: Round) => number) => median(rounds.map(pick));
    return {
      idle: { p50: of((r) => r.idle.p50), p99: of((r) => r.idle.p99) },
      busy: { p50: of((r) => r.busy.p50), p99: of((r) => r.busy.p99) },
      burst: { rate: of((r) => r.burst.rate), limited: of((r) => r.burst.limited), failed: of((r) => r.burst.failed) },
      cores: {
        gateway: of((r) => r.cores.gateway),
        session: of((r) => r.cores.session),
        postgres: of((r) => r.cores.postgres),
        other: of((r) => r.cores.other),
        burst: of((r) => r.cores.burst),
      },
    };
  } finally {
    if (burst !== undefined) {
      burst.send('close');
      await once(burst, 'exit');
    }
    await other?.close();
    await backends.close();
    await relay.stop();
  }
}

if (process.argv[2] === 'burst') {
  await burstProcess(process.argv[3]!, JSON.parse(process.argv[4]!) as string[]);
} else {
  await main();
}

async function main(): Promise<void> {
  await buildStaleServices();
  console.log(`load average at the start: ${loadAverage()}`);
  const modes: [string, Round][] = [
    ['bounds off', await measureMode('bounds off', BOUNDS_OFF)],
    ['4 per user, not shared', await measureMode('4 per user, not shared', BOUND_NOT_SHARED)],
    ['default bounds', await measureMode('default bounds', {})],
  ];
  const lines = [
    `\nmedian of ${ROUNDS} rounds (${CALLS} sequential calls of the other user idle and under the burst per round; the burst: ${BURST_CLIENTS} clients of ${BURST_SESSIONS} sessions):`,
    "| relay | other user's p50 idle → under the burst | p99 idle → under the burst | the burst's rate | refused | CPU, % of a core: gateway, session, PostgreSQL, the other user's client, the burst's clients |",
    '|---|---|---|---|---|---|',
  ];
  for (const [mode, r] of modes) {
    lines.push(
      `| ${mode} | ${fixed(r.idle.p50)} → ${fixed(r.busy.p50)} ms (${fixed(r.busy.p50 / r.idle.p50)}×) | ${fixed(r.idle.p99)} → ${fixed(r.busy.p99)} ms (${fixed(r.busy.p99 / r.idle.p99)}×) | ${fixed(r.burst.rate, 0)} calls/s | ${r.burst.limited} | ${fixed(r.cores.gateway, 0)}, ${fixed(r.cores.session, 0)}, ${fixed(r.cores.postgres, 0)}, ${fixed(r.cores.other, 0)}, ${fixed(r.cores.burst, 0)} |`,
    );
  }
  console.log(lines.join('\n'));
  console.log(`load average at the end: ${loadAverage()}`);
  process.exit(0);
}
