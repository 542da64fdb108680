import { consume, processOnce, waitForStream, type Bus, type Consumer, type Delivered } from '@relay/bus';
import type { Clock } from '@relay/clock';
import { SchedulerCommands } from '@relay/proto/relay/bus-contracts';
import type { Logger } from '@relay/telemetry';
import type { IdGenerator } from '../../app/ports.ts';
import { buildQueuedMessage } from '../../domain/sessions/queue-message.ts';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { PrismaExternalInbox } from '../store/prisma-external-inbox.ts';
import { PrismaSessionStore } from '../store/prisma-session-store.ts';

/** This service's durable consumer of the scheduler's queue_prompt commands. */
export const SCHEDULED_PROMPTS = { durable: 'session-scheduled-prompts', contract: SchedulerCommands.QUEUE_PROMPT } as const;

/**
 * Queues each scheduled prompt into its target session, with role "schedule", in the target's own relay
 * mode and with the provenance of the turn that set the schedule. The message id is the firing id, so the
 * scheduler can tell from turn_started/turn_ended when the message stops waiting. A redelivery changes nothing.
 */
export async function startScheduledPromptConsumer(
  bus: Bus,
  deps: { prisma: PrismaClient; ids: IdGenerator; clock: Clock; logger: Logger; signal: AbortSignal },
): Promise<Consumer | undefined> {
  if (!(await waitForStream(bus, SCHEDULED_PROMPTS.contract.stream, { logger: deps.logger, signal: deps.signal }))) return undefined;
  return consume(bus, {
    durable: SCHEDULED_PROMPTS.durable,
    contracts: [SCHEDULED_PROMPTS.contract],
    logger: deps.logger,
    handler: (message) => queueScheduledPrompt(deps, message),
  });
}

/** Queues one scheduled prompt, once per message id; a target that is gone, archived or external takes nothing. */
export async function queueScheduledPrompt(
  deps: { prisma: PrismaClient; ids: IdGenerator; clock: Clock; logger: Logger },
  message: Delivered<typeof SCHEDULED_PROMPTS.contract>,
): Promise<void> {
  // text: the whole message, the "[relay schedule …]" header line, then the schedule's text.
  const command = message.data;
  await deps.prisma.$transaction(async (tx) => {
    if (!(await processOnce(tx, SCHEDULED_PROMPTS.durable, message.id))) return;
    const store = new PrismaSessionStore(tx, true);
    const session = await store.lockSession(command.targetSessionId);
    if (!session || session.archived) {
      deps.logger.info({ firingId: command.firingId, sessionId: command.targetSessionId }, 'scheduled prompt dropped: its session is gone or archived');
      return;
    }
    const own = command.settingSessionId === command.targetSessionId;
    const records = buildQueuedMessage(
      deps.ids,
      session,
      { text: command.text, role: 'schedule', provenance: command.provenance ?? null, senderSessionId: own ? null : command.settingSessionId, mode: session.mode },
      deps.clock.now(),
    );
    const messageId = command.firingId;
    if (session.origin === 'external') {
      // Its agent runs outside the relay: the firing is written into the conversation, pending until it is read.
      await new PrismaExternalInbox(tx).write({ ...records.message, id: messageId }, records.event.eventId);
      return;
    }
    await store.queueMessage({
      message: { ...records.message, id: messageId },
      turn: { ...records.turn, messageId },
      event: { ...records.event, messageId },
    });
  });
}
