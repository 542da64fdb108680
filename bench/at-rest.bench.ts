// Benchmark of the relay at rest (prints figures; it is not a test). Run from the repository root:
//   npx tsx bench/at-rest.bench.ts
// (needs the local PostgreSQL at 127.0.0.1:5432; starts a whole relay of its own with test/harness/relay.ts, the
// prebuilt services as `relay up` runs them, rebuilding stale bundles first).
//
// Prints how long each service took to answer its health check after the six processes were spawned (and the CPU
// time each had used by the time all were ready), then lets
// the relay idle (nothing calls it) and prints, per service over the idle window: resident memory (VmRSS) at the
// end, CPU time as a share of one core, and PostgreSQL transactions per second in its database
// (pg_stat_database's xact_commit + xact_rollback, read from the `postgres` database so the reading adds none).
//
//   BENCH_SETTLE_SECONDS  idle time before the window, for start-up work to end (default 10)
//   BENCH_IDLE_SECONDS    the measured window (default 120)
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { STATEFUL, startRelay, type ServiceName } from '../test/harness/relay.ts';
import { cpuMs, fixed, loadAverage } from './support/figures.ts';

/** scripts/build.mjs (no type declarations): rebuilds the service bundles older than their sources. */
const { buildStaleServices } = (await import(new URL('../scripts/build.mjs', import.meta.url).href)) as { buildStaleServices(): Promise<void> };

const SETTLE_SECONDS = Number(process.env.BENCH_SETTLE_SECONDS ?? 10);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 120);
const SERVICES: ServiceName[] = ['gateway', ...STATEFUL];

/** Resident memory of a process, in MB. */
function rssMb(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
}

const sleep = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

await buildStaleServices();
const relay = await startRelay({ name: 'at-rest', readyTimeoutMs: 180_000 });
try {
  console.log("start-up (from spawning the six processes to each one's first healthy answer):");
  console.log(SERVICES.map((service) => `  ${service.padEnd(12)} ${fixed((relay.startUpMs[service] ?? NaN) / 1000, 2)} s`).join('\n'));
  console.log(`  all ready    ${fixed(Math.max(...SERVICES.map((service) => relay.startUpMs[service] ?? NaN)) / 1000, 2)} s`);
  // CPU time says what start-up costs whatever else runs on the machine: six services on two cores need at least
  // half their sum of wall time.
  const startCpu = Object.fromEntries(SERVICES.map((service) => [service, cpuMs(relay.services[service].pid)]));
  console.log(
    `CPU time used by then: ${SERVICES.map((service) => `${service} ${fixed(startCpu[service]! / 1000, 2)} s`).join(', ')}; in all ${fixed(Object.values(startCpu).reduce((sum, ms) => sum + ms, 0) / 1000, 2)} s`,
  );

  const names = Object.fromEntries(STATEFUL.map((service) => [service, new URL(relay.databaseUrls[service]).pathname.slice(1)]));
  const server = new URL(relay.databaseUrls.session);
  server.pathname = '/postgres';
  const stats = new pg.Client({ connectionString: server.toString() });
  await stats.connect();
  const transactions = async (): Promise<Record<string, number>> => {
    // Statistics reach pg_stat_database when a backend reports them (at most a second or so late).
    const { rows } = await stats.query<{ datname: string; n: string }>(
      'SELECT datname, xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = ANY($1)',
      [Object.values(names)],
    );
    return Object.fromEntries(STATEFUL.map((service) => [service, Number(rows.find((row) => row.datname === names[service])?.n)]));
  };
  const pids = Object.fromEntries(SERVICES.map((service) => [service, relay.services[service].pid]));

  console.log(`\nsettling ${SETTLE_SECONDS} s, then idle for ${IDLE_SECONDS} s (load average at the start: ${loadAverage()})…`);
  await sleep(SETTLE_SECONDS);
  const cpuBefore = Object.fromEntries(SERVICES.map((service) => [service, cpuMs(pids[service])]));
  const xactBefore = await transactions();
  const startedAt = performance.now();
  await sleep(IDLE_SECONDS);
  const seconds = (performance.now() - startedAt) / 1000;
  const xactAfter = await transactions();
  await stats.end();

  console.log(`\nat rest, ${fixed(seconds, 0)} s (load average at the end: ${loadAverage()}):`);
  console.log('| service | RSS | CPU | PostgreSQL transactions/s |');
  console.log('|---|---|---|---|');
  for (const service of SERVICES) {
    const cpu = (100 * (cpuMs(pids[service]) - cpuBefore[service]!)) / (seconds * 1000);
    const xacts = service === 'gateway' ? '— (no database)' : fixed((xactAfter[service]! - xactBefore[service]!) / seconds, 2);
    console.log(`| ${service} | ${fixed(rssMb(pids[service]), 0)} MB | ${fixed(cpu, 2)} % | ${xacts} |`);
  }
} finally {
  await relay.stop();
}
process.exit(0);
