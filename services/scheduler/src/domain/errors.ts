/**
 * The scheduler's error codes: the one catalogue of its refusals, filled by schedule, list and unschedule.
 */
export const SchedulerErrorCode = {} as const;
