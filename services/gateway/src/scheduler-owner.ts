/**
 * What the gateway needs from the scheduler service (spec, Schedules), implemented over gRPC in
 * src/grpc/grpc-scheduler-owner.ts.
 */
import type { Provenance } from './ports.ts';

/** A schedule as the scheduler keeps it (spec, Schedules). */
export interface Schedule {
  id: string;
  title: string;
  text: string;
  target: { id: string; title: string };
  setting: { id: string; title: string };
  at: Date;
  /** 0 for a schedule that fires once. */
  everyMinutes: number;
  once: boolean;
  /** The next grid time; while held, the first one after now (a held once schedule: the held firing's time). */
  nextFireAt: Date;
  lastFiredAt: Date | undefined;
  firedCount: number;
  skippedCount: number;
  heldForApproval: boolean;
  heldSince: Date | undefined;
  /** While held: the grid time of the held firing. */
  heldFireAt: Date | undefined;
  endedAt: Date | undefined;
  /** "" while active; unscheduled, fired, archived or deleted. */
  endReason: string;
}

export interface CreateScheduleInput {
  userId: string;
  setting: { id: string; title: string };
  target: { id: string; title: string };
  title: string;
  text: string;
  /** "" when not given. */
  at: string;
  /** 0 when not given. */
  everyMinutes: number;
  provenance: Provenance;
  dryRun: boolean;
}

/** The scheduler service: schedules that queue prompts later. */
export interface SchedulerOwner {
  /** Sets a schedule; undefined on a dry run. */
  createSchedule(input: CreateScheduleInput): Promise<Schedule | undefined>;
  /** A conversation's schedules (firing into it or set by it), or all of the user's with sessionId "". */
  listSchedules(userId: string, sessionId: string): Promise<Schedule[]>;
  /** Ends a schedule of the conversation (sessionId) or, with sessionId "", of the user (Cancel). */
  endSchedule(userId: string, sessionId: string, scheduleId: string): Promise<Schedule>;
}
