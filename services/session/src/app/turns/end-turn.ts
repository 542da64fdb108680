import { endTurnAs, sessionStateFor, turnEndedText, turnFailedText, type TurnEnding } from '../../domain/turns/turn-rules.ts';
import type { IdGenerator } from '../ports.ts';
import type { ClaimedTurn, EndedTurn, TurnDeps, TurnTransaction } from './turn-store.ts';

/** Expired leases one sweep ends at most; the next sweep takes the rest. */
const EXPIRED_LEASES_PER_SWEEP = 100;

/**
 * Ends the turn with a turn_ended event (and the reply as an assistant message when done) and sets its session idle
 * when nothing else is queued; false when it was not this runner's any more.
 */
export async function endTurn(deps: TurnDeps, turnId: string, runnerId: string, ending: TurnEnding, now: Date): Promise<boolean> {
  return deps.store.transaction(async (tx) => {
    const sessionId = await tx.sessionOfTurn(turnId);
    if (sessionId === undefined) return false;
    const userId = await tx.lockSession(sessionId);
    const ended = await tx.endRunningTurn(turnId, runnerId, ending, now);
    if (ended === undefined || userId === undefined) return false;
    await finishTurn(deps.ids, tx, ended, userId, ending, now);
    return true;
  });
}

/** What a sweep of the expired leases did: the turns it ended, and those it took over for the caller to run. */
export interface SweepResult {
  ended: string[];
  takenOver: ClaimedTurn[];
}

/**
 * Looks at every running or waiting turn whose lease ran out before `now`, except `alive` (the caller's own running
 * turns), each in a transaction of its own: one with a resume point (its replica stopped or died while its provider
 * could be picked up) is taken over for `takeOver.runnerId` while `takeOver.room()` says it can run one more, and
 * otherwise left for another replica; one without is ended as error RELAY_STOPPED_ERROR. Without `takeOver` (a
 * replica that stops) nothing is taken over.
 */
export async function sweepExpiredLeases(
  deps: TurnDeps,
  now: Date,
  alive: ReadonlySet<string>,
  takeOver?: { runnerId: string; leaseUntil: Date; room: () => boolean },
): Promise<SweepResult> {
  const expired = await deps.store.expiredLeases(now, EXPIRED_LEASES_PER_SWEEP);
  const ending = endTurnAs({ kind: 'relay_stopped' });
  const result: SweepResult = { ended: [], takenOver: [] };
  for (const candidate of expired.filter((turn) => !alive.has(turn.turnId))) {
    await deps.store.transaction(async (tx) => {
      const userId = await tx.lockSession(candidate.sessionId);
      if (userId === undefined) return;
      // Checked again under the lock: the runner may have renewed or ended it since the look.
      if (takeOver?.room()) {
        const claimed = await tx.takeOverTurn(candidate.turnId, takeOver.runnerId, now, takeOver.leaseUntil);
        if (claimed !== undefined) return void result.takenOver.push(claimed);
      }
      const turn = await tx.endExpiredTurn(candidate.turnId, ending, now);
      if (turn === undefined) return;
      await finishTurn(deps.ids, tx, turn, userId, ending, now);
      result.ended.push(candidate.turnId);
    });
  }
  return result;
}

/**
 * What follows a turn's end in its transaction: the reply as an assistant message (a failure as an error row), the session's state (idle once
 * nothing is queued or running), and turn_ended. The session row is locked, so a message queued concurrently either
 * counts here or sets running_turn after this commits.
 */
export async function finishTurn(ids: IdGenerator, tx: TurnTransaction, turn: EndedTurn, userId: string, ending: TurnEnding, now: Date): Promise<void> {
  const replied = ending.status === 'done';
  if (replied) {
    await tx.appendMessage({ id: ids.newId(), sessionId: turn.sessionId, role: 'assistant', text: ending.replyText, model: ending.replyModel, createdAt: now });
  } else if (ending.status === 'error') {
    await tx.appendMessage({ id: ids.newId(), sessionId: turn.sessionId, role: 'error', text: turnFailedText(ending), model: '', createdAt: now });
  }
  const unfinished = await tx.countUnfinishedTurns(turn.sessionId);
  await tx.updateSession(turn.sessionId, { state: sessionStateFor(unfinished), lastActivityAt: now, newMessages: replied ? 1 : 0 });
  await tx.recordEvent({
    type: 'turn_ended',
    eventId: ids.newId(),
    occurredAt: now,
    sessionId: turn.sessionId,
    userId,
    turnId: turn.turnId,
    messageId: turn.messageId,
    status: ending.status,
    text: turnEndedText(ending),
    senderSessionId: turn.senderSessionId,
  });
}
