import { consume, processOnce, waitForStream, type Bus, type Consumer, type Delivered } from '@relay/bus';
import type { Clock } from '@relay/clock';
import { SubscriptionCommands } from '@relay/proto/relay/bus-contracts';
import type { Logger } from '@relay/telemetry';
import type { IdGenerator } from '../../app/ports.ts';
import { buildQueuedMessage } from '../../domain/sessions/queue-message.ts';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { PrismaExternalInbox } from '../store/prisma-external-inbox.ts';
import { PrismaSessionStore } from '../store/prisma-session-store.ts';

/** This service's durable consumer of the subscription service's deliver_wakeup commands. */
export const WAKEUPS = { durable: 'session-wakeups', contract: SubscriptionCommands.DELIVER_WAKEUP } as const;

/** What the consumer needs; `steer` takes text into a session's running turn when its provider steers (else false). */
export interface WakeupDeps {
  prisma: PrismaClient;
  ids: IdGenerator;
  clock: Clock;
  logger: Logger;
  steer?: (providerId: string, sessionId: string, text: string) => Promise<boolean>;
}

/**
 * Delivers each wake-up into the watcher (decisions.md, While the watcher is mid-turn). Mid-turn on a
 * provider that steers (claude, claude-api), it is steered into the turn as it is (no steer note speaking as
 * the user), on whichever replica runs it. Otherwise it is queued as one message with role "event": a new
 * turn if the watcher is idle, else behind the running turn.
 * Wake-ups that arrive while an event message still waits unstarted at the end of the queue are merged into
 * it (its rows appended, the header kept once), so rows queued during one turn come as one message.
 */
export async function startWakeupConsumer(bus: Bus, deps: WakeupDeps): Promise<Consumer> {
  await waitForStream(bus, WAKEUPS.contract.stream, { logger: deps.logger });
  return consume(bus, {
    durable: WAKEUPS.durable,
    contracts: [WAKEUPS.contract],
    logger: deps.logger,
    handler: (message) => queueWakeup(deps, message),
  });
}

/**
 * Queues or merges one wake-up, once per message id; a watcher that is gone or archived takes nothing. An external
 * watcher's agent runs outside the relay: the wake-up is written into its conversation, pending until it reads it.
 */
export async function queueWakeup(deps: WakeupDeps, message: Delivered<typeof WAKEUPS.contract>): Promise<void> {
  // text: the whole message, the "[relay event · …]" header line, then its rows.
  const command = message.data;
  await deps.prisma.$transaction(async (tx) => {
    if (!(await processOnce(tx, WAKEUPS.durable, message.id))) return;
    const store = new PrismaSessionStore(tx, true);
    // The session row lock also keeps the turn runner from claiming the waiting turn while it is merged into.
    const session = await store.lockSession(command.watcherSessionId);
    if (!session || session.archived) {
      deps.logger.info({ wakeupId: command.wakeupId, sessionId: command.watcherSessionId }, 'wake-up dropped: its session is gone or archived');
      return;
    }
    if (session.origin === 'external') {
      const { message: written, event } = buildQueuedMessage(deps.ids, session, { text: command.text, role: 'event', provenance: null, senderSessionId: null, mode: session.mode }, deps.clock.now());
      await new PrismaExternalInbox(tx).write(written, event.eventId);
      return;
    }
    if (deps.steer !== undefined) {
      const [running] = await tx.$queryRaw<{ id: string }[]>`
        SELECT id FROM turns WHERE session_id = ${session.id} AND status IN ('running', 'waiting_for_answer') LIMIT 1`;
      // Steered last in the transaction: a redelivery after a failed commit could steer it twice, never lose it.
      if (running !== undefined && (await deps.steer(session.provider, session.id, command.text))) {
        deps.logger.info({ wakeupId: command.wakeupId, sessionId: session.id, turnId: running.id }, 'wake-up steered into the running turn');
        return;
      }
    }
    const [last] = await tx.$queryRaw<{ message_id: string; role: string; text: string }[]>`
      SELECT t.message_id, m.role, m.text FROM turns t JOIN messages m ON m.id = t.message_id
       WHERE t.session_id = ${session.id} AND t.status = 'queued'
       ORDER BY t.queued_at DESC, t.id DESC LIMIT 1`;
    if (last?.role === 'event') {
      const rows = command.text.split('\n').slice(1).join('\n');
      await tx.$executeRaw`UPDATE messages SET text = ${`${last.text}\n${rows}`} WHERE id = ${last.message_id}`;
      return;
    }
    const records = buildQueuedMessage(deps.ids, session, { text: command.text, role: 'event', provenance: null, senderSessionId: null, mode: session.mode }, deps.clock.now());
    await store.queueMessage(records);
  });
}
