// Benchmark of the CPU each of relay_tool's reads costs each service (prints figures; it is not a test). From the root:
//   npx tsx bench/cpu-per-call.bench.ts
// (needs the local PostgreSQL at 127.0.0.1:5432; starts a whole relay of its own with test/harness/relay.ts, rebuilding
// stale service bundles first.)
//
// gateway.bench.ts times calls, and a busy machine moves its latencies by up to 2× from one minute to the next. CPU
// time per call moves much less, so this bench is the one to judge a change of a service's work by. One external
// agent (of 16, beside one script session: 17 sessions listed, as in gateway.bench.ts) calls each read one at a time,
// BENCH_WARM_UP calls first and then BENCH_CALLS counted, each read on a client of its own (the SDK's client passes
// one AbortSignal to every fetch, and undici lets go of each call's listener on it only when that call is collected); it prints each process's CPU per counted call, read from
// /proc (10 ms ticks, so over thousands of calls), the relay's PostgreSQL backends as `postgres`, and the calls per
// second they reached.
//
//   BENCH_CALLS    counted calls per action (default 1000)
//   BENCH_WARM_UP  calls per action before counting (default 200)
import { STATEFUL, startRelay, type ServiceName } from '../test/harness/relay.ts';
import { cpuBetween, cpuMs, cpuOf, fixed, loadAverage } from './support/figures.ts';
import { externalAgentTokens, mcpClient, readableSession, relayBackends, relayReads, type Call } from './support/relay-agents.ts';

/** scripts/build.mjs (no type declarations): rebuilds the service bundles older than their sources. */
const { buildStaleServices } = (await import(new URL('../scripts/build.mjs', import.meta.url).href)) as { buildStaleServices(): Promise<void> };

const CALLS = Number(process.env.BENCH_CALLS ?? 1000);
const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 200);
const AGENTS = 16;
const SERVICES: ServiceName[] = ['gateway', ...STATEFUL];

async function callsOf(call: Call, count: number): Promise<void> {
  for (let i = 0; i < count; i++) if (!(await call())) throw new Error('a call failed');
}

await buildStaleServices();
const relay = await startRelay({ name: 'cpu', readyTimeoutMs: 180_000 });
const backends = await relayBackends(relay);
try {
  const readId = await readableSession(relay);
  const [token] = await externalAgentTokens(relay, AGENTS);
  console.log(`load average at the start: ${loadAverage()}`);
  console.log(`CPU ms per call (${CALLS} sequential calls each, after ${WARM_UP}):`);
  for (const name of ['list_sessions', 'read_session', 'relay_info'] as const) {
    const client = await mcpClient(relay.mcpUrl, token);
    const call = relayReads(client, readId)[name];
    await callsOf(call, WARM_UP);
    const services = Object.fromEntries(SERVICES.map((service) => [service, cpuMs(relay.services[service].pid)]));
    const postgres = cpuOf(await backends.pids());
    const started = performance.now();
    await callsOf(call, CALLS);
    const seconds = (performance.now() - started) / 1000;
    const perCall = Object.fromEntries(SERVICES.map((service) => [service, (cpuMs(relay.services[service].pid) - services[service]!) / CALLS]));
    perCall.postgres = cpuBetween(postgres, cpuOf(await backends.pids())) / CALLS;
    const total = Object.values(perCall).reduce((sum, ms) => sum + ms, 0);
    const shown = Object.entries(perCall).filter(([, ms]) => ms >= 0.005);
    console.log(`  ${name.padEnd(14)} ${shown.map(([process, ms]) => `${process} ${fixed(ms, 2)}`).join(', ')}; all ${fixed(total, 2)}; ${fixed(CALLS / seconds, 0)} calls/s`);
    await client.close();
  }
  console.log(`load average at the end: ${loadAverage()}`);
} finally {
  await backends.close();
  await relay.stop();
}
process.exit(0);
