/**
 * What happens when a schedule is due (spec, Schedules; decisions.md, Schedules: the finer rules):
 * fire once however many grid times were missed, skip a repeat while the previous firing's message
 * still waits, hold a firing for another session while the loop guard is used up.
 */
import { nextGridTime } from './grid.ts';
import type { EndReason, Schedule } from './schedule.ts';

/** How often a held firing is looked at again. */
export const HOLD_RECHECK_MS = 60_000;

/** The fields a due-time decision changes on the schedule row. */
export interface ScheduleUpdate {
  nextFireAt: Date;
  lastFiredAt: Date | null;
  firedCount: number;
  skippedCount: number;
  heldForApproval: boolean;
  heldSince: Date | null;
  endedAt: Date | null;
  endReason: EndReason | null;
}

/** One firing: its deterministic id (schedule id + due time) and the due time it stands for. */
export interface Firing {
  id: string;
  scheduleId: string;
  dueAt: Date;
  firedAt: Date;
}

/** The firing id of a schedule due at `dueAt`: the same on every replica, so nothing fires twice. */
export function firingId(scheduleId: string, dueAt: Date): string {
  return `${scheduleId}:${dueAt.toISOString()}`;
}

function unchanged(schedule: Schedule): ScheduleUpdate {
  const { nextFireAt, lastFiredAt, firedCount, skippedCount, heldForApproval, heldSince, endedAt, endReason } = schedule;
  return { nextFireAt, lastFiredAt, firedCount, skippedCount, heldForApproval, heldSince, endedAt, endReason };
}

/** The next time after `now` a repeating schedule is due: missed grid times collapse into the one firing now. */
function nextAfter(schedule: Schedule, now: Date): Date {
  return nextGridTime(schedule.at, schedule.everyMinutes, now);
}

/**
 * Whether a due schedule fires or skips: a repeat skips while the previous firing's message still waits
 * in the target's queue (no pile-up); a first firing, or a once schedule, never skips.
 */
export function dueAction(schedule: Schedule, previousStillWaits: boolean): 'fire' | 'skip' {
  return !schedule.once && previousStillWaits ? 'skip' : 'fire';
}

/** Fires a due schedule at `now`: one firing for its due time; a once schedule ends ("fired"), a repeat moves to its next grid time. */
export function fire(schedule: Schedule, now: Date): { firing: Firing; update: ScheduleUpdate } {
  const firing = { id: firingId(schedule.id, schedule.nextFireAt), scheduleId: schedule.id, dueAt: schedule.nextFireAt, firedAt: now };
  const update: ScheduleUpdate = {
    ...unchanged(schedule),
    lastFiredAt: now,
    firedCount: schedule.firedCount + 1,
    heldForApproval: false,
    heldSince: null,
  };
  if (schedule.once) return { firing, update: { ...update, endedAt: now, endReason: 'fired' } };
  return { firing, update: { ...update, nextFireAt: nextAfter(schedule, now) } };
}

/** Skips a due repeat because its previous message still waits: counted in skippedCount, then the grid goes on. */
export function skip(schedule: Schedule, now: Date): ScheduleUpdate {
  return { ...unchanged(schedule), skippedCount: schedule.skippedCount + 1, nextFireAt: nextAfter(schedule, now) };
}

/**
 * Holds a due firing for another session while the loop guard is used up: it stays due (later grid times
 * collapse into it) and is looked at again in a minute.
 */
export function hold(schedule: Schedule, now: Date): ScheduleUpdate {
  return {
    ...unchanged(schedule),
    heldForApproval: true,
    heldSince: schedule.heldSince ?? now,
    nextFireAt: new Date(now.getTime() + HOLD_RECHECK_MS),
  };
}

/** Keeps a due firing due and looks again in a minute (the loop guard could not be asked). */
export function retryLater(schedule: Schedule, now: Date): ScheduleUpdate {
  return { ...unchanged(schedule), nextFireAt: new Date(now.getTime() + HOLD_RECHECK_MS) };
}

/** Ends a schedule (unschedule, Cancel, archived or deleted session). */
export function end(schedule: Schedule, reason: EndReason, now: Date): ScheduleUpdate {
  return { ...unchanged(schedule), endedAt: now, endReason: reason, heldForApproval: false, heldSince: null };
}

/** The first line of a scheduled prompt: who queues it, and that it approves nothing. */
export function scheduledPromptHeader(scheduleId: string, title: string, everyMinutes: number): string {
  const cadence = everyMinutes > 0 ? `every ${everyMinutes} min` : 'once';
  return `[relay schedule ${scheduleId} "${title}" · ${cadence} · automated message from OAR, not from the user; it approves nothing]`;
}
