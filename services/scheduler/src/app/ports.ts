/**
 * What the scheduler's use cases need from the outside world: the schedule store (due rows claimed with
 * SELECT … FOR UPDATE SKIP LOCKED, firings and their commands written in one transaction) and the loop guard.
 */
import type { Firing, ScheduleUpdate } from '../domain/firing.ts';
import type { EndReason, Schedule } from '../domain/schedule.ts';

/** The scheduled-prompt command a firing publishes (proto relay.scheduler.v1.QueuePrompt, JSON). */
export interface QueuePromptCommand {
  firingId: string;
  scheduleId: string;
  userId: string;
  targetSessionId: string;
  title: string;
  text: string;
  dueAt: string;
  provenance: Schedule['provenance'];
  settingSessionId: string;
}

/** One claimed due schedule inside the claiming transaction. */
export interface DueSchedule {
  schedule: Schedule;
  /** The previous firing's message has not started a turn in the target yet. */
  previousStillWaits: boolean;
}

/** A claimed schedule's new fields. */
export interface ScheduleChange {
  scheduleId: string;
  update: ScheduleUpdate;
}

/** A firing and the command it publishes. */
export interface FiringCommand {
  firing: Firing;
  command: QueuePromptCommand;
}

/** The writes a firing transaction makes; they commit together or not at all. */
export interface FiringTransaction {
  /** Locks and returns up to `limit` schedules due at `now`, skipping rows another replica holds. */
  claimDue(now: Date, limit: number): Promise<DueSchedule[]>;
  /**
   * Saves a pass's decisions in a fixed number of statements: each claimed schedule's update, and the firings with
   * their queue_prompt commands (Nats-Msg-Id = firing id).
   */
  save(updates: readonly ScheduleChange[], firings: readonly FiringCommand[]): Promise<void>;
  /**
   * Runs what decides one due firing (its loop guard's count, the decision) in the firing's own trace, linked to
   * the call that set the schedule; the firing's command, saved later, continues that trace.
   */
  traceFiring<T>(scheduleId: string, firingId: string, run: () => Promise<T>): Promise<T>;
}

export interface ScheduleStore {
  /** Runs `work` in one interactive transaction. */
  firingTransaction<T>(work: (tx: FiringTransaction) => Promise<T>): Promise<T>;
  /**
   * Inserts the schedule `plan` makes of the active schedules that fire into the request's target or were set by its
   * setter, read under a lock on both conversations, so racing creates count one after the other; `plan` may throw.
   */
  create(request: { targetSessionId: string; settingSessionId: string }, plan: (active: Schedule[]) => Schedule): Promise<Schedule>;
  /** The active schedules that fire into the request's target or were set by its setter: what its limits count. */
  activeAgainst(request: { targetSessionId: string; settingSessionId: string }): Promise<Schedule[]>;
  /**
   * Schedules of a conversation (firing into it or set by it), or of the user when sessionId is empty, that are active
   * or ended at or after `endedSince`: the newest `limit` of them, the newest first.
   */
  list(userId: string, sessionId: string, endedSince: Date, limit: number): Promise<Schedule[]>;
  find(scheduleId: string): Promise<Schedule | undefined>;
  /** Ends the schedule if it is still active; false when it had already ended. */
  endIfActive(scheduleId: string, reason: EndReason, now: Date): Promise<Schedule | undefined>;
  /** Ends every active schedule that fires into or was set by the session. */
  endForSession(sessionId: string, reason: EndReason, now: Date): Promise<number>;
  /** Ends every active schedule a user set (the user was removed); how many. */
  endForUser(userId: string, reason: EndReason, now: Date): Promise<number>;
  /** The earliest next_fire_at of an active schedule. */
  earliestDue(): Promise<Date | undefined>;
  /** Marks a firing's message as taken by a turn (started, or ended without starting). */
  markFiringTaken(firingId: string, now: Date): Promise<boolean>;
}

/**
 * The loop guard (decisions.md, Across relays): counts one prompt to another agent for the setting
 * conversation. false = used up, so the firing is held.
 */
export interface LoopGuard {
  countPrompt(settingSessionId: string): Promise<boolean>;
}
