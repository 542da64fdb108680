import type { SubagentFinished, TurnDeps } from './turn-store.ts';

/** A sub-agent the provider ran inside the turn finished: a subagent_finished event, while the turn is this runner's. */
export async function recordSubagentFinished(deps: TurnDeps, turnId: string, runnerId: string, subagent: SubagentFinished, now: Date): Promise<void> {
  await deps.store.transaction(async (tx) => {
    const turn = await tx.findRunningTurn(turnId, runnerId);
    if (turn === undefined) return;
    await tx.recordEvent({
      type: 'subagent_finished',
      eventId: deps.ids.newId(),
      occurredAt: now,
      sessionId: turn.sessionId,
      userId: turn.userId,
      turnId,
      ...subagent,
    });
  });
}

/** The turn showed activity at `now` (reply text, a tool call): a turn_activity event, while the turn is this runner's. */
export async function recordTurnActivity(deps: TurnDeps, turnId: string, runnerId: string, now: Date): Promise<void> {
  await deps.store.transaction(async (tx) => {
    const turn = await tx.findRunningTurn(turnId, runnerId);
    if (turn === undefined) return;
    await tx.recordEvent({
      type: 'turn_activity',
      eventId: deps.ids.newId(),
      occurredAt: now,
      sessionId: turn.sessionId,
      userId: turn.userId,
      turnId,
      lastActivityAt: now,
    });
  });
}
