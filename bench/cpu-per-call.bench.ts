// Benchmark of the CPU each of relay_tool's reads costs each service (prints figures; it is not a test). From the root:
//   npx tsx bench/cpu-per-call.bench.ts
// (needs the local PostgreSQL at 127.0.0.1:5432; starts a whole relay of its own with test/harness/relay.ts, rebuilding
// stale service bundles first.)
//
// gateway.bench.ts times calls, and a busy machine moves its latencies by up to 2× from one minute to the next. CPU
// time per call moves much less, so this bench is the one to judge a change of a service's work by. One external
// agent (of 16, beside one script session: 17 sessions listed, as in gateway.bench.ts) calls each read one at a
// time: BENCH_WARM_UP calls of every read first (the processes keep getting cheaper per call for thousands of
// calls), then BENCH_CALLS counted of each, each run of calls on a client of its own (withMcpClient); it
// prints each process's CPU per counted call, read from /proc (10 ms ticks, so over thousands of calls), the relay's
// PostgreSQL backends as `postgres`, and the calls per second they reached. It measures two relays, one after the
// other: one that exports no telemetry (the services then load no OpenTelemetry SDK), and one exporting traces and
// metrics over OTLP, as a team following its calls runs it, to a receiver in this process
// (test/harness/otlp-receiver.ts, with the SDK's default 5 s batch delay); for that one it also prints the spans
// each call left, by service.
//
//   BENCH_CALLS    counted calls per action (default 1000)
//   BENCH_WARM_UP  calls per action before any is counted (default 500)
import { STATEFUL, startRelay, type Relay, type ServiceName } from '../test/harness/relay.ts';
import { OtlpReceiver } from '../test/harness/otlp-receiver.ts';
import { countCpu, fixed, loadAverage } from './support/figures.ts';
import { externalAgentTokens, readableSession, relayBackends, relayReads, withMcpClient, type Call } from './support/relay-agents.ts';

/** scripts/build.mjs (no type declarations): rebuilds the service bundles older than their sources. */
const { buildStaleServices } = (await import(new URL('../scripts/build.mjs', import.meta.url).href)) as { buildStaleServices(): Promise<void> };

const CALLS = Number(process.env.BENCH_CALLS ?? 1000);
const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 500);
const AGENTS = 16;
const SERVICES: ServiceName[] = ['gateway', ...STATEFUL];
const READS = ['list_sessions', 'read_session', 'relay_info'] as const;

async function callsOf(call: Call, count: number): Promise<void> {
  for (let i = 0; i < count; i++) if (!(await call())) throw new Error('a call failed');
}

/** Prints each process's CPU per call of each read on `relay`; with `receiver`, the spans each call left too. */
async function measure(relay: Relay, receiver?: OtlpReceiver): Promise<void> {
  const backends = await relayBackends(relay);
  try {
    const readId = await readableSession(relay);
    const token = (await externalAgentTokens(relay, AGENTS))[0]!;
    // Every read warms the processes before any is counted: they keep getting cheaper for thousands of calls.
    for (const name of READS) await withMcpClient(relay.mcpUrl, token, (client) => callsOf(relayReads(client, readId)[name], WARM_UP));
    if (receiver) await exported();
    for (const name of READS) {
      const spansBefore = receiver?.spans.length ?? 0;
      const cpu = await countCpu(Object.fromEntries(SERVICES.map((service) => [service, relay.services[service].pid])), backends.pids);
      const started = performance.now();
      await withMcpClient(relay.mcpUrl, token, (client) => callsOf(relayReads(client, readId)[name], CALLS));
      const seconds = (performance.now() - started) / 1000;
      const perCall = await cpu(CALLS);
      const total = Object.values(perCall).reduce((sum, ms) => sum + ms, 0);
      const shown = Object.entries(perCall).filter(([, ms]) => ms >= 0.005);
      console.log(
        `  ${name.padEnd(14)} ${shown.map(([process, ms]) => `${process} ${fixed(ms, 2)}`).join(', ')}; all ${fixed(total, 2)}; ${fixed(CALLS / seconds, 0)} calls/s`,
      );
      if (receiver) console.log(`  ${''.padEnd(14)} spans per call: ${await spansPerCall(receiver, spansBefore)}`);
    }
  } finally {
    await backends.close();
  }
}

/** Waits out the services' batch delay, so every span of the calls so far has reached the receiver. */
function exported(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 6_000));
}

/** The spans exported since `from`, per counted call, by service. */
async function spansPerCall(receiver: OtlpReceiver, from: number): Promise<string> {
  await exported();
  const byService = new Map<string, number>();
  for (const span of receiver.spans.slice(from)) byService.set(span.service, (byService.get(span.service) ?? 0) + 1);
  return [...byService].map(([service, count]) => `${service.replace(/^relay-/, '')} ${fixed(count / CALLS, 1)}`).join(', ');
}

await buildStaleServices();
console.log(`load average at the start: ${loadAverage()}`);
console.log(`CPU ms per call (${CALLS} sequential calls each, after ${WARM_UP} of every read), a relay exporting no telemetry:`);
const plain = await startRelay({ name: 'cpu', readyTimeoutMs: 180_000 });
try {
  await measure(plain);
} finally {
  await plain.stop();
}
console.log('the same, a relay exporting traces and metrics over OTLP:');
const receiver = new OtlpReceiver();
await receiver.start();
// The harness shortens the batch delay for the trace tests; a deployment keeps the SDK's 5 s.
const traced = await startRelay({ name: 'cpu-traced', readyTimeoutMs: 180_000, otlpEndpoint: receiver.endpoint, env: { OTEL_BSP_SCHEDULE_DELAY: '5000' } });
try {
  await measure(traced, receiver);
} finally {
  await traced.stop();
  await receiver.stop();
}
console.log(`load average at the end: ${loadAverage()}`);
process.exit(0);
