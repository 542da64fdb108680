/**
 * One pass of the firing loop: claims the due schedules (rows another replica holds are skipped) and,
 * per schedule, fires, skips or holds it; the decisions are saved together, in one transaction with the firings and
 * their queue_prompt commands.
 */
import { dueAction, dueGridTime, fire, firingId, GUARD_RETRY_MIN_MS, hold, retryLater, scheduledPromptHeader, skip, type Firing } from '../domain/firing.ts';
import type { FiringCommand, LoopGuard, QueuePromptCommand, ScheduleChange, ScheduleStore } from './ports.ts';
import { isForAnother, type Schedule } from '../domain/schedule.ts';

/** Due rows claimed per transaction; the loop runs again at once while a batch came back full. */
export const CLAIM_BATCH = 200;

export interface FiringOutcome {
  fired: number;
  skipped: number;
  held: number;
  /** Due firings the loop guard could not be asked about; looked at again in `guardRetryMs`. */
  deferred: number;
}

/** The command a firing publishes: the full message text, header first, and the setter's provenance. */
export function queuePromptCommand(schedule: Schedule, firingId: string, dueAt: Date): QueuePromptCommand {
  return {
    firingId,
    scheduleId: schedule.id,
    userId: schedule.userId,
    targetSessionId: schedule.targetSessionId,
    title: schedule.title,
    text: `${scheduledPromptHeader(schedule.id, schedule.title, schedule.everyMinutes)}\n${schedule.text}`,
    dueAt: dueAt.toISOString(),
    provenance: schedule.provenance,
    settingSessionId: schedule.settingSessionId,
  };
}

/**
 * Fires what is due at `now`; returns what it did, and the firings it recorded (their lateness is measured). A
 * firing whose loop guard could not be asked is looked at again `guardRetryMs` later (the firing loop backs off).
 */
export async function fireDueSchedules(
  deps: { store: ScheduleStore; guard: LoopGuard },
  now: Date,
  guardRetryMs: number = GUARD_RETRY_MIN_MS,
): Promise<FiringOutcome & { full: boolean; firings: Firing[] }> {
  return deps.store.firingTransaction(async (tx) => {
    const due = await tx.claimDue(now, CLAIM_BATCH);
    const outcome = { fired: 0, skipped: 0, held: 0, deferred: 0, full: due.length === CLAIM_BATCH, firings: [] as Firing[] };
    const updates: ScheduleChange[] = [];
    const fired: FiringCommand[] = [];
    for (const { schedule, previousStillWaits } of due) {
      if (dueAction(schedule, previousStillWaits) === 'skip') {
        updates.push({ scheduleId: schedule.id, update: skip(schedule, now) });
        outcome.skipped += 1;
        continue;
      }
      // The firing's trace holds its loop guard's count as well as its command.
      await tx.traceFiring(schedule.id, firingId(schedule.id, dueGridTime(schedule)), async () => {
        // A schedule into another session counts toward the setter's loop guard once per firing.
        if (isForAnother(schedule)) {
          // One schedule whose guard cannot be asked (the session service is away) must not stop the others.
          const allowed = await deps.guard.countPrompt(schedule.settingSessionId).catch(() => undefined);
          if (allowed !== true) {
            updates.push({ scheduleId: schedule.id, update: allowed === false ? hold(schedule, now) : retryLater(schedule, now, guardRetryMs) });
            if (allowed === false) outcome.held += 1;
            else outcome.deferred += 1;
            return;
          }
        }
        const { firing, update } = fire(schedule, now);
        fired.push({ firing, command: queuePromptCommand(schedule, firing.id, firing.dueAt) });
        updates.push({ scheduleId: schedule.id, update });
        outcome.fired += 1;
        outcome.firings.push(firing);
      });
    }
    await tx.save(updates, fired);
    return outcome;
  });
}
