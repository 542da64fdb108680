/**
 * The scheduler's use cases behind its RPCs: set a schedule, list a conversation's (or user's) schedules,
 * end one.
 */
import { scheduleNotFound } from '../domain/errors.ts';
import type { ScheduleStore } from './ports.ts';
import { isForAnother, isListed, newScheduleId, planSchedule, type EndReason, type Schedule, type ScheduleRequest } from '../domain/schedule.ts';

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
    const listed = await deps.store.list(request.userId, '');
    const active = listed.filter((s) => s.endedAt === null);
    planSchedule(request, countsFor(active, request), id, now);
    return undefined;
  }
  return deps.store.create((counts) => planSchedule(request, counts, id, now));
}

function countsFor(active: readonly Schedule[], request: ScheduleRequest) {
  return {
    firingIntoTarget: active.filter((s) => s.targetSessionId === request.targetSessionId).length,
    setBySetterForOthers: active.filter((s) => s.settingSessionId === request.settingSessionId && isForAnother(s)).length,
  };
}

/** The listed schedules of a conversation (firing into it or set by it), or of the user when sessionId is "". */
export async function listSchedules(store: ScheduleStore, userId: string, sessionId: string, now: Date): Promise<Schedule[]> {
  return (await store.list(userId, sessionId)).filter((schedule) => isListed(schedule, now));
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
