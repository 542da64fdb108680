/**
 * A schedule and the rules for setting one: validation of `at`/`every_minutes`, the two limits, and the
 * first firing time.
 */
import { invalidInput, scheduleLimit } from './errors.ts';
import { nextGridTime } from './grid.ts';

/** Where a prompt came from (decisions.md, Across relays); a schedule's firings carry the setter's. */
export interface Provenance {
  originRelay: string;
  originSessionId: string;
  originSessionTitle: string;
  model: string;
  hops: number;
  /** The relays the setting turn's prompt came through, oldest first; absent on schedules set before it. */
  viaRelays?: string[];
}

export const END_REASONS = ['unscheduled', 'fired', 'archived', 'deleted'] as const;
export type EndReason = (typeof END_REASONS)[number];

export interface Schedule {
  id: string;
  userId: string;
  title: string;
  text: string;
  targetSessionId: string;
  targetSessionTitle: string;
  settingSessionId: string;
  settingSessionTitle: string;
  at: Date;
  /** 0 for a schedule that fires once. */
  everyMinutes: number;
  once: boolean;
  /** When the firing loop looks at it next: its next grid time, or while a due firing waits, the next look. */
  nextFireAt: Date;
  /** The grid time of a due firing that has not gone yet (held for approval, or the loop guard did not answer). */
  pendingFireAt: Date | null;
  lastFiredAt: Date | null;
  firedCount: number;
  skippedCount: number;
  heldForApproval: boolean;
  heldSince: Date | null;
  provenance: Provenance;
  createdAt: Date;
  endedAt: Date | null;
  endReason: EndReason | null;
}

/** Schedules firing into one conversation / set by one conversation for others (decisions.md, Limits). */
export const SCHEDULE_LIMITS = { firingInto: 20, setForOthers: 20 } as const;

/** How long an ended schedule still shows in list_schedules. */
export const ENDED_VISIBLE_MS = 60 * 60_000;

/** The longest `every_minutes` taken (a year), so the grid stays in safe integers. */
const MAX_EVERY_MINUTES = 525_600;

export interface ScheduleRequest {
  userId: string;
  settingSessionId: string;
  settingSessionTitle: string;
  targetSessionId: string;
  targetSessionTitle: string;
  title: string;
  text: string;
  /** ISO 8601 instant, "" when not given. */
  at: string;
  /** 0 when not given. */
  everyMinutes: number;
  provenance: Provenance;
}

/** Counts of active schedules the limits are checked against. */
export interface ScheduleCounts {
  firingIntoTarget: number;
  setBySetterForOthers: number;
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** Parses an ISO 8601 instant with a zone (Z or ±hh:mm); undefined when it is not one. */
export function parseInstant(text: string): Date | undefined {
  if (!ISO_INSTANT.test(text)) return undefined;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/**
 * Checks a schedule request and builds the schedule, due first at `at` (even in the past: a missed time
 * fires once at once) or, without `at`, one interval from now. Throws INVALID_INPUT or SCHEDULE_LIMIT.
 */
export function planSchedule(request: ScheduleRequest, counts: ScheduleCounts, id: string, now: Date): Schedule {
  if (request.title.trim() === '') throw invalidInput('schedule needs a title.', { field: 'title' });
  if (request.text.trim() === '') throw invalidInput('schedule needs a text: the prompt it queues.', { field: 'text' });
  if (request.at === '' && request.everyMinutes === 0) {
    throw invalidInput('schedule needs at (an ISO 8601 time), every_minutes (a whole number of minutes), or both.', { field: 'at' });
  }
  if (!Number.isInteger(request.everyMinutes) || request.everyMinutes < 0 || request.everyMinutes > MAX_EVERY_MINUTES) {
    throw invalidInput(`every_minutes must be a whole number of minutes from 1 to ${MAX_EVERY_MINUTES}.`, { field: 'every_minutes' });
  }
  let at = new Date(now.getTime() + request.everyMinutes * 60_000);
  if (request.at !== '') {
    const parsed = parseInstant(request.at);
    if (!parsed) throw invalidInput('at must be an ISO 8601 instant with a zone, e.g. 2026-11-02T02:00:00Z.', { field: 'at' });
    at = parsed;
  }
  const own = request.targetSessionId === request.settingSessionId;
  if (counts.firingIntoTarget >= SCHEDULE_LIMITS.firingInto) {
    throw scheduleLimit(
      `Session ${request.targetSessionId} already has ${SCHEDULE_LIMITS.firingInto} active schedules firing into it. End one with unschedule first.`,
    );
  }
  if (!own && counts.setBySetterForOthers >= SCHEDULE_LIMITS.setForOthers) {
    throw scheduleLimit(`This conversation already set ${SCHEDULE_LIMITS.setForOthers} active schedules for other sessions. End one with unschedule first.`);
  }
  return {
    id,
    userId: request.userId,
    title: request.title.trim(),
    text: request.text,
    targetSessionId: request.targetSessionId,
    targetSessionTitle: request.targetSessionTitle,
    settingSessionId: request.settingSessionId,
    settingSessionTitle: request.settingSessionTitle,
    at,
    everyMinutes: request.everyMinutes,
    once: request.everyMinutes === 0,
    nextFireAt: at,
    pendingFireAt: null,
    lastFiredAt: null,
    firedCount: 0,
    skippedCount: 0,
    heldForApproval: false,
    heldSince: null,
    provenance: request.provenance,
    createdAt: now,
    endedAt: null,
    endReason: null,
  };
}

/** The earliest end of a schedule list_schedules shows at `now`: active ones show, and those ended within the last hour. */
export function listedSince(now: Date): Date {
  return new Date(now.getTime() - ENDED_VISIBLE_MS);
}

/**
 * The times list_schedules shows. A held schedule shows its held firing (`heldFireAt`, the grid time it stands for)
 * and as `nextFireAt` the next grid time after now, not the minute the firing loop looks again: the grid times that
 * pass during a hold collapse into the held firing, so the first one still ahead is the next of its own. A held once
 * schedule has no other time: its `nextFireAt` is the held firing's. Null for an ended schedule.
 */
export function shownTimes(schedule: Schedule, now: Date): { nextFireAt: Date | null; heldFireAt: Date | null } {
  if (schedule.endedAt !== null) return { nextFireAt: null, heldFireAt: null };
  if (!schedule.heldForApproval) return { nextFireAt: schedule.nextFireAt, heldFireAt: null };
  const heldFireAt = schedule.pendingFireAt ?? schedule.nextFireAt;
  return { nextFireAt: schedule.once ? heldFireAt : nextGridTime(schedule.at, schedule.everyMinutes, now), heldFireAt };
}

/** Whether a schedule fires into another session than the conversation that set it (counted, may be held). */
export function isForAnother(schedule: Pick<Schedule, 'targetSessionId' | 'settingSessionId'>): boolean {
  return schedule.targetSessionId !== schedule.settingSessionId;
}

/** What the limits count for a request among `schedules`: the active ones firing into its target, and those its setter set for others. */
export function scheduleCounts(schedules: readonly Schedule[], request: Pick<ScheduleRequest, 'targetSessionId' | 'settingSessionId'>): ScheduleCounts {
  const active = schedules.filter((schedule) => schedule.endedAt === null);
  return {
    firingIntoTarget: active.filter((schedule) => schedule.targetSessionId === request.targetSessionId).length,
    setBySetterForOthers: active.filter((schedule) => schedule.settingSessionId === request.settingSessionId && isForAnother(schedule)).length,
  };
}

/** A new schedule id: "sch_" + 12 hex. */
export function newScheduleId(randomHex: (bytes: number) => string): string {
  return `sch_${randomHex(6)}`;
}
