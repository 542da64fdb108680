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
  pendingFireAt: Date | null;
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

/** Whether a queued message's id is a firing's: only messages a firing queued carry one (a schedule id, "sch_…", first). */
export function isFiringId(messageId: string): boolean {
  return messageId.startsWith('sch_');
}

function unchanged(schedule: Schedule): ScheduleUpdate {
  const { nextFireAt, pendingFireAt, lastFiredAt, firedCount, skippedCount, heldForApproval, heldSince, endedAt, endReason } = schedule;
  return { nextFireAt, pendingFireAt, lastFiredAt, firedCount, skippedCount, heldForApproval, heldSince, endedAt, endReason };
}

/** The grid time the due firing stands for: the one that waits (held, or the guard did not answer), else nextFireAt. */
export function dueGridTime(schedule: Pick<Schedule, 'nextFireAt' | 'pendingFireAt'>): Date {
  return schedule.pendingFireAt ?? schedule.nextFireAt;
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

/**
 * Fires a due schedule at `now`: one firing for its due grid time (a held one's own, however long the hold); a once
 * schedule ends ("fired"), a repeat moves to its next grid time after now (those passed meanwhile collapse into it).
 */
export function fire(schedule: Schedule, now: Date): { firing: Firing; update: ScheduleUpdate } {
  const dueAt = dueGridTime(schedule);
  const firing = { id: firingId(schedule.id, dueAt), scheduleId: schedule.id, dueAt, firedAt: now };
  const update: ScheduleUpdate = {
    ...unchanged(schedule),
    pendingFireAt: null,
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
  return {
    ...unchanged(schedule),
    skippedCount: schedule.skippedCount + 1,
    nextFireAt: nextAfter(schedule, now),
    pendingFireAt: null,
    heldForApproval: false,
    heldSince: null,
  };
}

/**
 * Holds a due firing for another session while the loop guard is used up: it keeps its grid time (later grid times
 * collapse into it: not fired, not skipped) and is looked at again in a minute.
 */
export function hold(schedule: Schedule, now: Date): ScheduleUpdate {
  return {
    ...unchanged(schedule),
    pendingFireAt: dueGridTime(schedule),
    heldForApproval: true,
    heldSince: schedule.heldSince ?? now,
    nextFireAt: new Date(now.getTime() + HOLD_RECHECK_MS),
  };
}

/** The first look again at a firing whose loop guard could not be asked (relay time); each look after doubles it. */
export const GUARD_RETRY_MIN_MS = 1_000;
/**
 * The longest wait between looks at such a firing: a relay whose session service is still starting (a catch-up
 * firing after a restart) fires within a few seconds of it answering, not a minute later.
 */
export const GUARD_RETRY_MAX_MS = 5_000;

/**
 * Keeps a due firing due, with its grid time, and looks again in `retryMs` (the loop guard could not be asked: the
 * session service is away or still starting).
 */
export function retryLater(schedule: Schedule, now: Date, retryMs: number = GUARD_RETRY_MIN_MS): ScheduleUpdate {
  return { ...unchanged(schedule), pendingFireAt: dueGridTime(schedule), nextFireAt: new Date(now.getTime() + retryMs) };
}

/** The wait before the next look after a pass that could not ask the loop guard, when the last wait was `lastMs`. */
export function nextGuardRetryMs(lastMs: number | undefined): number {
  return lastMs === undefined ? GUARD_RETRY_MIN_MS : Math.min(GUARD_RETRY_MAX_MS, lastMs * 2);
}

/** Ends a schedule (unschedule, Cancel, archived or deleted session). */
export function end(schedule: Schedule, reason: EndReason, now: Date): ScheduleUpdate {
  return { ...unchanged(schedule), endedAt: now, endReason: reason, pendingFireAt: null, heldForApproval: false, heldSince: null };
}

/** The first line of a scheduled prompt: who queues it, and that it approves nothing. */
export function scheduledPromptHeader(scheduleId: string, title: string, everyMinutes: number): string {
  const cadence = everyMinutes > 0 ? `every ${everyMinutes} min` : 'once';
  return `[relay schedule ${scheduleId} "${title}" · ${cadence} · automated message from OAR, not from the user; it approves nothing]`;
}
