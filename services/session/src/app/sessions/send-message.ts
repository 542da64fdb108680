import type { Session, SessionView } from '../../domain/sessions/session.ts';
import { invalidInput, notFound } from '../../domain/errors.ts';
import type { ActionDeps } from '../ports.ts';
import { planSendMessage, type SendMessageInput } from '../../domain/sessions/plan-send-message.ts';
import { agentProvenance, buildQueuedMessage, promptOf } from '../../domain/sessions/queue-message.ts';

/** The queued message (id '' on a dry run) and what the result reports. */
export interface SendMessageResult {
  session: SessionView;
  messageId: string;
  modelNote: string;
  billingSwitch: string;
}

/**
 * send: checks the whole call, then (unless dry_run) in one transaction carries its settings onto the
 * session and queues the message (a user's, or another agent's with provenance) with turn_queued.
 */
export async function sendMessage(deps: ActionDeps, input: SendMessageInput, now: Date): Promise<SendMessageResult> {
  if (input.userId === '') throw invalidInput('user_id is required', { field: 'user_id' });
  const providers = await deps.catalogue.providers();
  return deps.store.transaction(async (tx) => {
    // Both rows locked in id order, so two conversations sending to each other cannot deadlock.
    const locked = new Map<string, Session | undefined>();
    for (const id of [...new Set([input.callerSessionId, input.sessionId])].filter((id) => id !== '').sort()) {
      locked.set(id, await tx.lockSession(id));
    }
    const caller = input.callerSessionId === '' ? undefined : locked.get(input.callerSessionId);
    if (input.callerSessionId !== '' && (caller === undefined || caller.userId !== input.userId)) {
      throw notFound(`No calling session '${input.callerSessionId}' on relay "${deps.relay.name}".`, { field: 'caller_session_id' });
    }
    const target = locked.get(input.sessionId);
    const [callerAtWork, targetTurns] = await Promise.all([
      caller === undefined ? 0 : tx.countSessionsAtWork(caller.id),
      target === undefined ? [] : tx.openTurns(target.id),
    ]);
    const plan = planSendMessage(input, {
      target,
      caller,
      providers,
      callerAtWork,
      targetAtWork: targetTurns.length > 0,
      relayName: deps.relay.name,
    });
    const result = { modelNote: plan.modelNote, billingSwitch: plan.billingSwitch };
    if (input.dryRun) {
      const [view] = await tx.viewSessions([{ ...plan.target, ...plan.changes }]);
      return { ...result, session: view!, messageId: '' };
    }

    if (Object.keys(plan.changes).length > 0) await tx.updateSession(plan.target.id, plan.changes);
    const provenance = input.provenance ?? (caller === undefined ? null : agentProvenance(caller, await tx.openTurns(caller.id), deps.relay.name));
    const prompt = promptOf({ text: input.text, provenance, mentioned: input.mentionedRelays ?? [] }, caller !== undefined, deps.relay.name);
    const queued = buildQueuedMessage(
      deps.ids,
      plan.target,
      { text: prompt.text, role: prompt.role, provenance, senderSessionId: caller?.id ?? null, mode: plan.mode },
      now,
    );
    await tx.queueMessage(queued);
    if (prompt.unlocks.length > 0) await tx.unlockRelays(plan.target.id, prompt.unlocks, now);
    const stored = await tx.findSession(plan.target.id);
    if (stored === undefined) throw new Error('the session just written to is missing');
    const [view] = await tx.viewSessions([stored]);
    return { ...result, session: view!, messageId: queued.message.id };
  });
}
