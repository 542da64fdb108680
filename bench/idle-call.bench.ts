// Benchmark of an agent's call after the relay has been idle (prints figures; it is not a test). From the root:
//   npx tsx bench/idle-call.bench.ts
// (needs the local PostgreSQL at 127.0.0.1:5432; starts a whole relay of its own with test/harness/relay.ts.)
//
// Agents seldom call without pause: one that calls every half minute finds every cache of the relay as the idle time
// left it. After BENCH_IDLE_SECONDS without a call (more than `pg`'s 10 s idle timeout), an external agent calls
// `list_sessions`, `relay_info` and `read_session` once each, then once more at once (warm). It prints each call's
// time, cold and warm, and how many PostgreSQL backends the relay's databases started for the cold calls (from
// pg_stat_activity: a new connection costs a backend's start, its authentication and the statements' preparing).
// Then, on a second relay exporting traces, it prints the gRPC calls each of the three reads makes once the
// gateway's holds (5 s) have run out, from the call's trace.
//
//   BENCH_ROUNDS        idle pauses (default 5)
//   BENCH_IDLE_SECONDS  length of each pause (default 12)
import { startRelay, type Relay } from '../test/harness/relay.ts';
import { OtlpReceiver } from '../test/harness/otlp-receiver.ts';
import { until } from '../test/harness/until.ts';
import { median } from './support/figures.ts';
import { mcpClient, readableSession, relayBackends } from './support/relay-agents.ts';

/** scripts/build.mjs (no type declarations): rebuilds the service bundles older than their sources. */
const { buildStaleServices } = (await import(new URL('../scripts/build.mjs', import.meta.url).href)) as { buildStaleServices(): Promise<void> };

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 12);

/** Past the gateway's holds on the caller and the settings (CACHE_MS, 5 s). */
const PAST_THE_HOLDS_MS = 6_000;
/** OpenTelemetry's SpanKind.CLIENT, as OTLP numbers it. */
const CLIENT_SPAN = 3;

/** An external agent of `relay` with its three reads, each a function that times one call. */
async function idleAgent(relay: Relay) {
  const readId = await readableSession(relay);
  const { token } = await relay.createExternalSession('idle agent');
  const client = await mcpClient(relay.mcpUrl, token);
  const calls: Record<string, Record<string, unknown>> = {
    list_sessions: { action: 'list_sessions', relay: 'this' },
    relay_info: { action: 'relay_info', relay: 'this' },
    read_session: { action: 'read_session', relay: 'this', session: readId },
  };
  const timed = async (args: Record<string, unknown>) => {
    const started = performance.now();
    const result = await client.callTool({ name: 'relay_tool', arguments: args });
    if (result.isError) throw new Error(`${String(args.action)} failed: ${JSON.stringify(result.content)}`);
    return performance.now() - started;
  };
  for (let i = 0; i < 50; i++) for (const args of Object.values(calls)) await timed(args);
  return { client, calls, timed };
}

/** Prints the gRPC calls each read makes once the gateway's holds have run out, from a traced relay's traces. */
async function callsPastTheHolds(): Promise<void> {
  const receiver = new OtlpReceiver();
  await receiver.start();
  const traced = await startRelay({ name: 'idle-traced', readyTimeoutMs: 180_000, otlpEndpoint: receiver.endpoint });
  try {
    const { client, calls, timed } = await idleAgent(traced);
    console.log(`\nthe gRPC calls of each read after ${PAST_THE_HOLDS_MS / 1000} s idle, from its trace:`);
    for (const [name, args] of Object.entries(calls)) {
      await new Promise((resolve) => setTimeout(resolve, PAST_THE_HOLDS_MS));
      const from = receiver.spans.length;
      await timed(args);
      const tool = await until(`the trace of ${name}`, () => receiver.spans.slice(from).find((span) => span.name === `relay_tool ${name}`));
      const made = receiver.trace(tool.traceId).filter((span) => span.service === 'relay-gateway' && span.kind === CLIENT_SPAN);
      console.log(`  ${name.padEnd(14)} ${made.map((span) => span.name.replace(/^.*\.(\w+Service\/)/, '$1')).join(', ')}`);
    }
    await client.close();
  } finally {
    await traced.stop();
    await receiver.stop();
  }
}

await buildStaleServices();
const relay = await startRelay({ name: 'idle', readyTimeoutMs: 180_000 });
const backends = await relayBackends(relay);
try {
  const { client, calls, timed } = await idleAgent(relay);

  const cold: Record<string, number[]> = {};
  const warm: Record<string, number[]> = {};
  const started: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
    const before = new Set(await backends.pids());
    for (const [name, args] of Object.entries(calls)) (cold[name] ??= []).push(await timed(args));
    started.push((await backends.pids()).filter((pid) => !before.has(pid)).length);
    for (const [name, args] of Object.entries(calls)) (warm[name] ??= []).push(await timed(args));
    console.log(
      `round ${round}: ${Object.keys(calls)
        .map((name) => `${name} ${cold[name]!.at(-1)!.toFixed(1)} ms (warm ${warm[name]!.at(-1)!.toFixed(1)})`)
        .join(', ')}; backends started ${started.at(-1)}`,
    );
  }
  console.log(`\nmedian of ${ROUNDS} calls after ${IDLE_SECONDS} s idle (warm: the same call right after):`);
  for (const name of Object.keys(calls)) console.log(`  ${name.padEnd(14)} ${median(cold[name]!).toFixed(1)} ms (warm ${median(warm[name]!).toFixed(1)} ms)`);
  console.log(`  PostgreSQL backends started for the three cold calls: ${started.join(', ')}`);
  await client.close();
} finally {
  await backends.close();
  await relay.stop();
}
await callsPastTheHolds();
