// What the benchmarks read and print: percentiles, CPU time from /proc, the load average.
import { readFileSync } from 'node:fs';

/** Linux's USER_HZ: /proc counts CPU time in ticks of 10 ms. */
const TICK_MS = 10;

/** The p-th percentile of latencies sorted ascending. */
export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
export const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
export const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '—');
export const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
/** `items` in the order of the `turn`-th turn: as given, then reversed, and so on, so that none always goes first. */
export const inTurn = <T>(items: readonly T[], turn: number): readonly T[] => (turn % 2 === 0 ? items : [...items].reverse());

/** User + system CPU time of a process so far, in ms; NaN for a process that is gone or unknown. */
export function cpuMs(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return NaN;
  }
}

/** CPU ms of `pids`, each read now; a process that is gone reads as absent. */
export function cpuOf(pids: number[]): Map<number, number> {
  return new Map(pids.map((pid) => [pid, cpuMs(pid)] as const).filter(([, ms]) => Number.isFinite(ms)));
}

/**
 * The CPU processes spent between two readings of `cpuOf`: one that started in between counts from 0, one that ended
 * in between is lost (the services' pools keep their PostgreSQL backends while calls come one after another).
 */
export function cpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}

/**
 * Starts counting the CPU time of the processes `pids` (by name) and, with `backends`, of the PostgreSQL backends it
 * lists, as `postgres`. The function it answers reads each one's CPU since, divided by `calls`.
 */
export async function countCpu(
  pids: Record<string, number | undefined>,
  backends?: () => Promise<number[]>,
): Promise<(calls: number) => Promise<Record<string, number>>> {
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMs(pid)]));
  const backendsBefore = backends === undefined ? undefined : cpuOf(await backends());
  return async (calls) => {
    const perCall = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, (cpuMs(pid) - before[name]!) / calls]));
    if (backends !== undefined) perCall.postgres = cpuBetween(backendsBefore!, cpuOf(await backends())) / calls;
    return perCall;
  };
}
