import { inTraceOf } from '@relay/telemetry';
import { planClaim } from '../../domain/turns/turn-rules.ts';
import { finishTurn } from './end-turn.ts';
import type { ClaimedTurn, TurnDeps } from './turn-store.ts';

/** What one claim did: started a turn, or ended one at once (see planClaim). */
export type ClaimResult = { kind: 'run'; claimed: ClaimedTurn } | { kind: 'ended'; turnId: string };

/**
 * Takes the oldest queued turn of a session that has no running or waiting turn (skipping rows other runners hold,
 * and turns of the `held` providers, which a usage limit pauses: they stay queued) and applies planClaim to it, in
 * one transaction: the turn runs for this runner (turn_started), or ends at once; undefined when there is none.
 */
export async function claimNextTurn(
  deps: TurnDeps,
  options: { runnerId: string; now: Date; canRun: (provider: string) => boolean; leaseMs: number; held?: readonly string[] },
): Promise<ClaimResult | undefined> {
  const { now, runnerId } = options;
  return deps.store.transaction(async (tx) => {
    const queued = await tx.claimCandidate(options.held ?? []);
    if (queued === undefined) return undefined;
    const { session } = queued;

    const plan = planClaim(
      { stopRequested: queued.stopRequested, sessionArchived: queued.sessionArchived, provider: session.provider },
      { now, canRun: options.canRun, leaseMs: options.leaseMs },
    );
    if (plan.kind === 'end') {
      await tx.markClaimedEnded(queued.turnId, runnerId, plan.ending, now);
      const ended = { turnId: queued.turnId, sessionId: session.id, messageId: queued.messageId, senderSessionId: queued.senderSessionId };
      await inTraceOf(queued.traceParent, () => finishTurn(deps.ids, tx, ended, session.userId, plan.ending, now));
      return { kind: 'ended', turnId: queued.turnId };
    }

    await tx.markRunning(queued.turnId, runnerId, plan.startedAt, plan.leaseUntil);
    await tx.updateSession(session.id, { state: 'running_turn', lastActivityAt: now, newMessages: 0 });
    // The runner claims outside any trace: the turn's start is announced in the trace of the call that queued it.
    const started = {
      type: 'turn_started',
      eventId: deps.ids.newId(),
      occurredAt: now,
      sessionId: session.id,
      userId: session.userId,
      turnId: queued.turnId,
      messageId: queued.messageId,
    } as const;
    await inTraceOf(queued.traceParent, () => tx.recordEvent(started));
    return {
      kind: 'run',
      claimed: {
        turnId: queued.turnId,
        messageId: queued.messageId,
        text: queued.text,
        traceParent: queued.traceParent,
        mode: queued.mode,
        startedAt: plan.startedAt,
        session,
      },
    };
  });
}
