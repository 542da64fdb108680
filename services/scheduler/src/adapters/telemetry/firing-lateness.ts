/**
 * The scheduler's firing lateness: how long after its due instant each schedule fired, both read from the relay
 * Clock. A firing that waited for a replica, the database or the loop guard shows up here.
 */
import { histogram, instruments, Metric } from '@relay/telemetry';
import type { Firing } from '../../domain/firing.ts';

const schedulerMetrics = instruments('scheduler', (meter) => ({ lateness: histogram(meter, Metric.SCHEDULER_FIRING_LATENESS) }));

/** Seconds from the firing's due instant to the instant it fired (never below 0). */
export function latenessSeconds(firing: Pick<Firing, 'dueAt' | 'firedAt'>): number {
  return Math.max(0, firing.firedAt.getTime() - firing.dueAt.getTime()) / 1000;
}

/** Records committed firings in `relay.scheduler.firing.lateness`. */
export function recordFiringLateness(firings: Pick<Firing, 'dueAt' | 'firedAt'>[]): void {
  for (const firing of firings) schedulerMetrics().lateness.record(latenessSeconds(firing));
}
