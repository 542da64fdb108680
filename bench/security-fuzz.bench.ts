// Benchmark of the gateway's edges under fuzzing (prints figures; it is not a test). Run from the repository root:
//   npx tsx bench/security-fuzz.bench.ts
// (needs the local PostgreSQL at 127.0.0.1:5432; starts a whole relay of its own, rebuilding stale service bundles
// first). It sends the fuzz test's generated inputs (test/security/fuzz-inputs.ts) — malformed relay_tool calls
// through an MCP client and malformed HTTP requests to /mcp, /api/v1 and /relay/v1 — with a 2-second
// deadline per call (the fuzz test asks only that every call is answered), and counts what came back instead of asserting.
//
//   BENCH_FUZZ_CALLS     calls in all (default 100000)
//   BENCH_FUZZ_HTTP      the share of them that are raw HTTP requests (default 0.4; the rest are relay_tool calls)
//   BENCH_FUZZ_PARALLEL  calls in flight at once (default 4)
//   BENCH_FUZZ_SEED      fast-check's seed (default: from the clock; printed, so a run can be repeated)
//
// It prints calls per second, latency p50/p99/max per kind of call, the answers by kind (HTTP status, relay_tool
// code), faults (5xx, REMOTE_RELAY_INTERNAL, JSON-RPC internal error), late answers (none within 2 s) and whether
// every service still answers its health check at the end. Stopped early (Ctrl-C, SIGTERM), it stops sending
// and prints the same figures for the calls answered so far.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { STATEFUL, startRelay, type Relay } from '../test/harness/relay.ts';
import { DEADLINE_MS, FUZZ_RELAY_ENV, sendHttpCase, sendToolCall, startCardDenier, type FuzzTokens, type Outcome } from '../test/security/fuzz-client.ts';
import { httpCase, sampleOf, toolCall, vocabularyOf, type HttpCase, type Vocabulary } from '../test/security/fuzz-inputs.ts';
import { withMcpClient } from './support/relay-agents.ts';

/** scripts/build.mjs (no type declarations): rebuilds the service bundles older than their sources. */
const { buildStaleServices } = (await import(new URL('../scripts/build.mjs', import.meta.url).href)) as { buildStaleServices(): Promise<void> };

const CALLS = Number(process.env.BENCH_FUZZ_CALLS ?? 100_000);
const HTTP_SHARE = Number(process.env.BENCH_FUZZ_HTTP ?? 0.4);
const PARALLEL = Number(process.env.BENCH_FUZZ_PARALLEL ?? 4);
const SEED = Number(process.env.BENCH_FUZZ_SEED ?? Date.now() % 2 ** 31);
/** Inputs are generated this many at a time: some are 100,000 characters long. */
const CHUNK = 500;
/** Set by SIGINT or SIGTERM: no more calls are sent, and the figures so far are printed. */
let stopRequested = false;

type Sent = { type: 'tool'; input: Record<string, unknown> } | { type: 'http'; input: HttpCase };

interface Tally {
  latencies: { tool: number[]; http: number[] };
  kinds: Map<string, number>;
  faults: { outcome: Outcome; input: string }[];
  late: { outcome: Outcome; input: string }[];
  status5xx: number;
  faultCount: number;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const preview = (input: unknown) => {
  const text = JSON.stringify(input) ?? String(input);
  return text.length > 300 ? `${text.slice(0, 300)}… (${text.length} characters)` : text;
};

/** One chunk's inputs, tool calls and HTTP requests interleaved in a fixed order. */
function chunkOf(vocabulary: Vocabulary, count: number, seed: number): Sent[] {
  const http = Math.round(count * HTTP_SHARE);
  const tools = sampleOf(toolCall(vocabulary), count - http, seed).map((input): Sent => ({ type: 'tool', input }));
  const requests = sampleOf(httpCase(), http, seed + 1).map((input): Sent => ({ type: 'http', input }));
  const mixed: Sent[] = [];
  while (tools.length > 0 || requests.length > 0) {
    // Spread the HTTP requests evenly among the tool calls.
    if (requests.length > 0 && (tools.length === 0 || mixed.length * HTTP_SHARE >= mixed.filter((sent) => sent.type === 'http').length))
      mixed.push(requests.shift()!);
    else mixed.push(tools.shift()!);
  }
  return mixed;
}

async function send(sent: Sent, agent: Client, relay: Relay, tokens: FuzzTokens): Promise<Outcome> {
  return sent.type === 'tool' ? sendToolCall(agent, sent.input, DEADLINE_MS) : sendHttpCase(relay.gatewayUrl, tokens, sent.input, DEADLINE_MS);
}

async function run(inputs: Sent[], agent: Client, relay: Relay, tokens: FuzzTokens, tally: Tally): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (next < inputs.length && !stopRequested) {
        const sent = inputs[next++]!;
        let outcome: Outcome;
        try {
          outcome = await send(sent, agent, relay, tokens);
        } catch (error) {
          // The client itself gave up (a connection reset, say): counted as a fault of the edge.
          outcome = { kind: `client error ${(error as Error).name}`, fault: true, late: false, ms: NaN };
        }
        tally.kinds.set(outcome.kind, (tally.kinds.get(outcome.kind) ?? 0) + 1);
        if (!Number.isNaN(outcome.ms)) tally.latencies[sent.type].push(outcome.ms);
        if (/^http 5\d\d/.test(outcome.kind)) tally.status5xx += 1;
        if (outcome.fault) tally.faultCount += 1;
        // A few of each, to print: what broke it, not every repeat.
        if (outcome.fault && tally.faults.length < 20) tally.faults.push({ outcome, input: `${sent.type} ${preview(sent.input)}` });
        if (outcome.late && tally.late.length < 20) tally.late.push({ outcome, input: `${sent.type} ${preview(sent.input)}` });
      }
    }),
  );
}

async function alive(relay: Relay, service: (typeof STATEFUL)[number] | 'gateway'): Promise<boolean> {
  const timeout = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 10_000).unref());
  return Promise.race([
    relay.waitReady(service).then(
      () => true,
      () => false,
    ),
    timeout,
  ]);
}

async function main(): Promise<void> {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => (stopRequested = true));
  console.log(`security fuzz: ${CALLS} calls (${Math.round(HTTP_SHARE * 100)}% raw HTTP), ${PARALLEL} in flight, deadline ${DEADLINE_MS} ms, seed ${SEED}`);
  await buildStaleServices();
  const relay = await startRelay({ name: 'fuzz-bench', env: FUZZ_RELAY_ENV });
  const session = await relay.createExternalSession('Fuzz bench');
  const tokens: FuzzTokens = { user: relay.userToken, session: session.token };
  const denier = startCardDenier(relay.gatewayUrl, relay.userToken);
  const tally: Tally = { latencies: { tool: [], http: [] }, kinds: new Map(), faults: [], late: [], status5xx: 0, faultCount: 0 };
  try {
    const vocabulary = await withMcpClient(relay.mcpUrl, tokens.session, async (agent) =>
      vocabularyOf((await agent.listTools()).tools.find((tool) => tool.name === 'relay_tool')!),
    );
    const started = performance.now();
    let done = 0;
    let reported = 0;
    for (let chunk = 0; done < CALLS && !stopRequested; chunk += 1) {
      const count = Math.min(CHUNK, CALLS - done);
      // A client of its own for each chunk (withMcpClient says why).
      await withMcpClient(relay.mcpUrl, tokens.session, (agent) => run(chunkOf(vocabulary, count, SEED + 2 * chunk), agent, relay, tokens, tally));
      done += count;
      if (!stopRequested && (done - reported >= CALLS / 10 || done === CALLS)) {
        reported = done;
        const seconds = (performance.now() - started) / 1000;
        console.error(
          `  ${done} calls in ${seconds.toFixed(0)} s (${(done / seconds).toFixed(1)}/s), ${tally.faultCount} faults, ${tally.kinds.get('late') ?? 0} late`,
        );
      }
    }
    if (stopRequested) console.log(`\nstopped early: the figures below are of the calls answered before the stop, not of ${CALLS}`);
    const seconds = (performance.now() - started) / 1000;
    const up = await Promise.all([...STATEFUL, 'gateway' as const].map(async (service) => [service, await alive(relay, service)] as const));
    report(tally, seconds, up, denier.decided(), denier.failures());
  } finally {
    await denier.stop();
    await relay.stop();
  }
}

function report(tally: Tally, seconds: number, up: (readonly [string, boolean])[], cardsDenied: number, denierFailures: string[]): void {
  const total = tally.latencies.tool.length + tally.latencies.http.length;
  console.log(`\n${total} answers in ${seconds.toFixed(1)} s: ${(total / seconds).toFixed(1)} calls/s`);
  console.log('\n| calls | count | p50 | p99 | max |\n|---|---|---|---|---|');
  for (const type of ['tool', 'http'] as const) {
    const sorted = [...tally.latencies[type]].sort((a, b) => a - b);
    const ms = (value: number) => `${value.toFixed(0)} ms`;
    console.log(
      `| ${type === 'tool' ? 'relay_tool' : 'raw HTTP'} | ${sorted.length} | ${ms(percentile(sorted, 50))} | ${ms(percentile(sorted, 99))} | ${ms(sorted.at(-1) ?? NaN)} |`,
    );
  }
  console.log('\n| answer | count |\n|---|---|');
  for (const [kind, count] of [...tally.kinds].sort((a, b) => b[1] - a[1])) console.log(`| ${kind} | ${count} |`);
  console.log(
    `\n5xx: ${tally.status5xx} · faults (5xx, REMOTE_RELAY_INTERNAL, JSON-RPC internal, not relay_tool's JSON): ${tally.faultCount} · late (no answer within ${DEADLINE_MS} ms): ${tally.kinds.get('late') ?? 0}`,
  );
  console.log(`cards the user denied: ${cardsDenied}${denierFailures.length > 0 ? ` (user API failures: ${denierFailures.slice(0, 3).join('; ')})` : ''}`);
  console.log(`services up after: ${up.map(([service, ok]) => `${service} ${ok ? 'up' : 'DOWN'}`).join(', ')}`);
  for (const { outcome, input } of tally.faults) console.log(`  fault ${outcome.kind}: ${input}`);
  for (const { outcome, input } of tally.late.slice(0, 5)) console.log(`  late (${outcome.ms.toFixed(0)} ms): ${input}`);
}

await main();
