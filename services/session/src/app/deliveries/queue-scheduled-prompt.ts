import type { Clock } from '@relay/clock';
import type { Logger } from '@relay/telemetry';
import type { Provenance } from '../../domain/sessions/conversation.ts';
import { buildQueuedMessage } from '../../domain/sessions/queue-message.ts';
import type { IdGenerator } from '../ports.ts';
import type { Deliveries, Delivery } from './ports.ts';

/** What queuing a scheduled prompt needs. */
export interface ScheduledPromptDeps {
  deliveries: Deliveries;
  ids: IdGenerator;
  clock: Clock;
  logger: Logger;
}

/** The scheduler's queue_prompt: `text` is the whole message, the "[relay schedule …]" header line, then the schedule's text. */
export interface ScheduledPrompt {
  firingId: string;
  targetSessionId: string;
  settingSessionId: string;
  text: string;
  provenance?: Provenance | undefined;
}

/**
 * Queues a scheduled prompt into its target session, once per delivery, with role "schedule", in the target's own
 * relay mode and with the provenance of the turn that set the schedule; a target that is gone or archived takes
 * nothing. The message id is the firing id, so the scheduler can tell from turn_started/turn_ended when the message
 * stops waiting.
 */
export async function queueScheduledPrompt(deps: ScheduledPromptDeps, delivery: Delivery, prompt: ScheduledPrompt): Promise<void> {
  await deps.deliveries.once(delivery, async (tx) => {
    const session = await tx.lockSession(prompt.targetSessionId);
    if (!session || session.archived) {
      deps.logger.info({ firingId: prompt.firingId, sessionId: prompt.targetSessionId }, 'scheduled prompt dropped: its session is gone or archived');
      return;
    }
    const own = prompt.settingSessionId === prompt.targetSessionId;
    const records = buildQueuedMessage(
      deps.ids,
      session,
      { text: prompt.text, role: 'schedule', provenance: prompt.provenance ?? null, senderSessionId: own ? null : prompt.settingSessionId, mode: session.mode },
      deps.clock.now(),
    );
    const messageId = prompt.firingId;
    if (session.origin === 'external') {
      // Its agent runs outside the relay: the firing is written into the conversation, pending until it is read.
      await tx.writeExternal({ ...records.message, id: messageId }, records.event.eventId);
      return;
    }
    await tx.queueMessage({
      message: { ...records.message, id: messageId },
      turn: { ...records.turn, messageId },
      event: { ...records.event, messageId },
    });
  });
}
