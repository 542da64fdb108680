// Benchmark of what waiting costs (prints figures; it is not a test). Run from the repository root:
//   npx tsx bench/waits.bench.ts
// (needs the local PostgreSQL at 127.0.0.1:5432; starts a relay of its own with test/harness/relay.ts, rebuilding
// stale service bundles first).
//
// BENCH_WAITS external sessions' agents each make a call that waits (the relay holds an external call's answer for up
// to RELAY_EXTERNAL_CALL_SECONDS, 50 s; its hold as the session's running turn is renewed every 20 s meanwhile), one
// scenario after the other:
//   wait   `wait` on their own conversation, nothing arriving;
//   cards  in plan mode, `ask` on behalf of another session: each call waits on its approval card, which nobody decides.
// Over BENCH_SECONDS while they wait (from SETTLE_MS after they started, the cards' over RAMP_MS, so the window holds
// a round of the holds' renewals) it reads each process's CPU (the six services, and the relay's PostgreSQL backends
// as `postgres`) and PostgreSQL transactions per second, against the same window with no call in flight before, and
// each process's resident memory before and during, per wait.
//
//   BENCH_WAITS      concurrent waits (default 1000)
//   BENCH_SECONDS    the window measured, at rest and while they wait (default 30)
//   BENCH_SCENARIOS  which, in order (default wait,cards)
//   BENCH_RAMP_MS    how long the cards' calls take to start, evenly spread (default 10000; 0: all at once)
//   BENCH_SETTLE_MS  how long after the calls started the window begins (default 5000): on a loaded machine the
//                    burst of the calls' holds outlasts 5 s, and a later window measures the waits alone (the window
//                    must end before the waits do, and hold the renewals 20 s after the holds)
//   BENCH_WAIT_SECONDS  each `wait`'s wait_seconds (default 45, at most 110), the relay answering an external call
//                    5 s after it (RELAY_EXTERNAL_CALL_SECONDS): longer waits leave room for a later window
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { STATEFUL, startRelay, type Relay } from '../test/harness/relay.ts';
import { cpuBetween, cpuMs, cpuOf, fixed, loadAverage } from './support/figures.ts';
import { mcpClient, relayBackends } from './support/relay-agents.ts';

/** scripts/build.mjs (no type declarations): rebuilds the service bundles older than their sources. */
const { buildStaleServices } = (await import(new URL('../scripts/build.mjs', import.meta.url).href)) as { buildStaleServices(): Promise<void> };

const WAITS = Number(process.env.BENCH_WAITS ?? 1000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const SCENARIOS = (process.env.BENCH_SCENARIOS ?? 'wait,cards').split(',') as Scenario[];
/** The calls wait longer than the window and its settling; the relay answers an external call 5 s after (50 s by default). */
const WAIT_SECONDS = Math.min(110, Number(process.env.BENCH_WAIT_SECONDS ?? 45));
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 5_000);
/** How long the cards' calls take to start, evenly spread (the waits start at once). */
const RAMP_MS = Number(process.env.BENCH_RAMP_MS ?? 10_000);
/** The sessions the cards' asks are about: an ask may have 20 pending per session it is about. */
const ASKED_ABOUT = 60;

type Scenario = 'wait' | 'cards';

/** A relay_tool result's code: 'ok', the refusal's code, or 'unreadable'. */
function codeOf(content: unknown): string {
  try {
    const parsed = JSON.parse((content as { text: string }[])[0]!.text) as { ok?: boolean; code?: string };
    return parsed.ok === true ? 'ok' : (parsed.code ?? 'unreadable');
  } catch {
    return 'unreadable';
  }
}

/** Resident memory of a process in MB. */
function rssMb(pid: number | undefined): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('VmRSS:'));
  return Number(/(\d+)/.exec(line ?? '')?.[1]) / 1024;
}

/** The relay's transactions so far, all its databases. */
async function transactions(stats: pg.Client, relay: Relay): Promise<number> {
  const names = STATEFUL.map((service) => new URL(relay.databaseUrls[service]).pathname.slice(1));
  const { rows } = await stats.query<{ n: string }>('SELECT sum(xact_commit + xact_rollback) AS n FROM pg_stat_database WHERE datname = ANY($1)', [names]);
  return Number(rows[0]!.n);
}

/** The cards pending in the question service's database (the user API lists at most 500). */
async function pendingCards(relay: Relay): Promise<number> {
  const question = new pg.Client({ connectionString: relay.databaseUrls.question });
  await question.connect();
  try {
    const { rows } = await question.query<{ n: string }>("SELECT count(*) AS n FROM cards WHERE status = 'pending'");
    return Number(rows[0]!.n);
  } finally {
    await question.end();
  }
}

/** Each process's CPU (% of one core) and the transactions per second over the window. */
async function window(relay: Relay, backends: () => Promise<number[]>, stats: pg.Client): Promise<{ cpu: Record<string, number>; tps: number }> {
  const names = ['gateway', ...STATEFUL] as const;
  const before = Object.fromEntries(names.map((name) => [name, cpuMs(relay.services[name].pid)]));
  const backendsBefore = cpuOf(await backends());
  const txBefore = await transactions(stats, relay);
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
  const ms = performance.now() - started;
  const cpu = Object.fromEntries(names.map((name) => [name, (100 * (cpuMs(relay.services[name].pid) - before[name]!)) / ms]));
  cpu.postgres = (100 * cpuBetween(backendsBefore, cpuOf(await backends()))) / ms;
  // pg_stat_database hears of a backend's transactions when it reports them (at most every 10 s idle, at once busy).
  const tps = ((await transactions(stats, relay)) - txBefore) / (ms / 1000);
  return { cpu, tps };
}

await buildStaleServices();
console.log(`load average at the start: ${loadAverage()} (a shared machine: other work's CPU is not counted, but its minutes slow the relay's)`);
const relay = await startRelay({ name: 'waits', readyTimeoutMs: 180_000, env: { RELAY_EXTERNAL_CALL_SECONDS: String(WAIT_SECONDS + 5) } });
const clients: Client[] = [];
const backends = await relayBackends(relay);
const server = new URL(relay.databaseUrls.session);
server.pathname = '/postgres';
const stats = new pg.Client({ connectionString: server.toString() });
await stats.connect();
try {
  const agents: { id: string; token: string }[] = [];
  for (let i = 0; i < WAITS; i++) agents.push(await relay.createExternalSession(`waiting agent ${i}`));
  const about: string[] = [];
  for (let i = 0; i < ASKED_ABOUT; i++) about.push((await relay.createExternalSession(`asked about ${i}`)).id);
  for (const agent of agents) clients.push(await mcpClient(relay.mcpUrl, agent.token));
  const services = ['gateway', ...STATEFUL] as const;

  /** What each agent's call is in a scenario. */
  const callOf = (scenario: Scenario, i: number): Record<string, unknown> =>
    scenario === 'wait'
      ? { action: 'wait', relay: 'this', session: agents[i]!.id, wait_seconds: WAIT_SECONDS }
      : { action: 'ask', relay: 'this', session: about[i % ASKED_ABOUT], question: `Go on with part ${i}?`, options: ['Yes', 'No'] };

  for (const scenario of SCENARIOS) {
    if (scenario === 'cards') {
      for (const agent of agents) {
        const changed = await relay.api('PATCH', `/api/v1/sessions/${agent.id}`, { mode: 'plan' });
        if (changed.status !== 200) throw new Error(`PATCH mode answered ${changed.status}: ${JSON.stringify(changed.body)}`);
      }
    }
    const memoryAtRest = Object.fromEntries(services.map((name) => [name, rssMb(relay.services[name].pid)]));
    const atRest = await window(relay, backends.pids, stats);

    let answered = 0;
    let failed = 0;
    /** The calls answered, by their result's code ('ok' for a success). */
    const answers = new Map<string, number>();
    // The cards' calls start over RAMP_MS: 1,000 at once measure a burst's cost more than a wait's.
    const ramp = scenario === 'cards' ? RAMP_MS : 0;
    const waits = clients.map(async (client, i) => {
      await new Promise((resolve) => setTimeout(resolve, (ramp * i) / WAITS));
      return client.callTool({ name: 'relay_tool', arguments: callOf(scenario, i) }, undefined, { timeout: 120_000 }).then(
        (result) => {
          answered += 1;
          if (answered === 1) console.log(`${scenario}: the first answer: ${JSON.stringify(result.content).slice(0, 300)}`);
          const code = codeOf(result.content);
          answers.set(code, (answers.get(code) ?? 0) + 1);
        },
        (error: unknown) => {
          failed += 1;
          if (failed === 1) console.log(`${scenario}: the first call that failed: ${String(error).slice(0, 300)}`);
        },
      );
    });
    await new Promise((resolve) => setTimeout(resolve, ramp + SETTLE_MS));
    const memoryWaiting = Object.fromEntries(services.map((name) => [name, rssMb(relay.services[name].pid)]));
    const cards = scenario === 'cards' ? await pendingCards(relay) : undefined;
    const waiting = await window(relay, backends.pids, stats);
    const answeredInWindow = answered;
    await Promise.all(waits);
    const cardsAtEnd = scenario === 'cards' ? await pendingCards(relay) : undefined;

    const what =
      scenario === 'wait' ? "external sessions' own `wait`, nothing arriving" : `external agents' \`ask\` waiting on approval cards, ${cards} cards pending`;
    const lines = [
      `\n${WAITS} concurrent waits (${what}), ${SECONDS} s windows; ${answeredInWindow} answered before the window ended, ${failed} failed; load average ${loadAverage()}:`,
      '| process | CPU at rest | CPU while they wait | memory at rest | memory while they wait | per wait |',
      '|---|---|---|---|---|---|',
    ];
    for (const name of services) {
      const perWaitKb = ((memoryWaiting[name]! - memoryAtRest[name]!) * 1024) / WAITS;
      lines.push(
        `| ${name} | ${fixed(atRest.cpu[name]!, 2)} % | ${fixed(waiting.cpu[name]!, 2)} % | ${fixed(memoryAtRest[name]!, 0)} MB | ${fixed(memoryWaiting[name]!, 0)} MB | ${fixed(perWaitKb, 1)} KB |`,
      );
    }
    lines.push(`| postgres (the relay's backends) | ${fixed(atRest.cpu.postgres!, 2)} % | ${fixed(waiting.cpu.postgres!, 2)} % | | | |`);
    lines.push(`PostgreSQL transactions per second, all the relay's databases: ${fixed(atRest.tps, 1)} at rest, ${fixed(waiting.tps, 1)} while they wait`);
    console.log(lines.join('\n'));
    const errors = relay
      .logs()
      .split('\n')
      .filter((line) => line.includes('"level":"error"') || line.includes('"level":"fatal"'));
    if (cardsAtEnd !== undefined) console.log(`cards pending once every call had answered: ${cardsAtEnd}`);
    console.log(`the calls' answers by code: ${[...answers].map(([code, n]) => `${code} ${n}`).join(', ') || 'none'}`);
    if (errors.length > 0) {
      const kinds = new Map<string, number>();
      for (const line of errors) {
        let entry: { service?: string; path?: string; msg?: string; err?: { message?: string } };
        try {
          entry = JSON.parse(line) as typeof entry;
        } catch {
          entry = { msg: line.slice(0, 120) };
        }
        const kind = `${entry.service} ${entry.path ?? ''} ${entry.msg}: ${entry.err?.message?.slice(0, 120) ?? ''}`;
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      }
      console.log(`the relay logged ${errors.length} errors:\n${[...kinds].map(([kind, n]) => `  ${n} × ${kind}`).join('\n')}`);
    }
  }
} finally {
  await Promise.all(clients.map((client) => client.close()));
  await stats.end();
  await backends.close();
  await relay.stop();
}
console.log(`load average at the end: ${loadAverage()}`);
process.exit(0);
