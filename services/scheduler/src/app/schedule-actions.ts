/**
 * The scheduler's use cases behind its RPCs (set a schedule, list a conversation's or user's schedules, end one)
 * and its session-events consumer (a session archived, a firing's message taken).
 */
import { scheduleNotFound } from '../domain/errors.ts';
import { isFiringId } from '../domain/firing.ts';
import type { ScheduleStore } from './ports.ts';
import { listedSince, newScheduleId, planSchedule, scheduleCounts, type EndReason, type Schedule, type ScheduleRequest } from '../domain/schedule.ts';

export interface ScheduleDeps {
  store: ScheduleStore;
  randomHex: (bytes: number) => string;
}

/**
 * Sets a schedule (or, with dryRun, runs every check and creates nothing). The gateway has passed the
 * setter's loop guard (a schedule for another session counts once when set); the firings count here.
 */
export async function createSchedule(deps: ScheduleDeps, request: ScheduleRequest, now: Date, dryRun: boolean): Promise<Schedule | undefined> {
  const id = newScheduleId(deps.randomHex);
  if (dryRun) {
    // Validation without the counts first, then the limits as they stand.
    planSchedule(request, { firingIntoTarget: 0, setBySetterForOthers: 0 }, id, now);
    planSchedule(request, scheduleCounts(await deps.store.activeAgainst(request), request), id, now);
    return undefined;
  }
  return deps.store.create(request, (active) => planSchedule(request, scheduleCounts(active, request), id, now));
}

/** The most schedules one listing answers: a user's spans every one of their sessions. */
const LIST_LIMIT = 500;

/**
 * The listed schedules of a conversation (firing into it or set by it), or of the user when sessionId is "": active
 * ones and those ended in the last ENDED_VISIBLE_MS, the oldest first; the newest LIST_LIMIT of them, with `more` when
 * more are listed than that (one more is read to tell).
 */
export async function listSchedules(store: ScheduleStore, userId: string, sessionId: string, now: Date): Promise<{ schedules: Schedule[]; more: boolean }> {
  const newest = await store.list(userId, sessionId, listedSince(now), LIST_LIMIT + 1);
  return { schedules: newest.slice(0, LIST_LIMIT).reverse(), more: newest.length > LIST_LIMIT };
}

/**
 * Ends one active schedule of the conversation (one firing into it or set by it) or, with sessionId "",
 * of the user (Cancel). Anything else is NOT_FOUND.
 */
export async function endSchedule(store: ScheduleStore, input: { userId: string; sessionId: string; scheduleId: string }, now: Date): Promise<Schedule> {
  const schedule = await store.find(input.scheduleId);
  const mine =
    schedule !== undefined &&
    schedule.userId === input.userId &&
    schedule.endedAt === null &&
    (input.sessionId === '' || schedule.targetSessionId === input.sessionId || schedule.settingSessionId === input.sessionId);
  const reason: EndReason = 'unscheduled';
  const ended = mine ? await store.endIfActive(input.scheduleId, reason, now) : undefined;
  if (!ended) throw scheduleNotFound(input.scheduleId);
  return ended;
}

/** Ends every active schedule firing into or set by an archived session; how many. An event without a session ends none. */
export async function endSchedulesOfArchivedSession(store: ScheduleStore, sessionId: string, now: Date): Promise<number> {
  if (sessionId === '') return 0;
  return store.endForSession(sessionId, 'archived', now);
}

/**
 * Ends every active schedule of a removed user, as their sessions' archives do (reason archived: the removal archived
 * them); how many. Their archived events end the same schedules again, which changes nothing. No user, none.
 */
export async function endSchedulesOfRemovedUser(store: ScheduleStore, userId: string, now: Date): Promise<number> {
  if (userId === '') return 0;
  return store.endForUser(userId, 'archived', now);
}

/** A turn took a message (it started, or ended without starting): a firing's message no longer waits, so the next repeat may fire. */
export async function noteMessageTaken(store: ScheduleStore, messageId: string, now: Date): Promise<void> {
  if (isFiringId(messageId)) await store.markFiringTaken(messageId, now);
}
