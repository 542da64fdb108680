import type { Clock } from '@relay/clock';
import type { Logger } from '@relay/telemetry';
import { buildQueuedMessage } from '../../domain/sessions/queue-message.ts';
import type { IdGenerator } from '../ports.ts';
import type { Deliveries, Delivery } from './ports.ts';

/** What delivering a wake-up needs; `steer` takes text into a session's running turn when its provider steers (else false). */
export interface WakeupDeps {
  deliveries: Deliveries;
  ids: IdGenerator;
  clock: Clock;
  logger: Logger;
  steer?: (providerId: string, sessionId: string, text: string) => Promise<boolean>;
}

/** The subscription service's deliver_wakeup: `text` is the whole message, the "[relay event · …]" header line, then its rows. */
export interface Wakeup {
  wakeupId: string;
  watcherSessionId: string;
  text: string;
}

/**
 * Delivers a wake-up into the watcher (decisions.md, While the watcher is mid-turn), once per delivery; a watcher
 * that is gone or archived takes nothing. Mid-turn on a provider that steers (claude, claude-api), it is steered
 * into the turn as it is (no steer note speaking as the user), on whichever replica runs it. Otherwise it is queued
 * as one message with role "event": a new turn if the watcher is idle, else behind the running turn. Wake-ups that
 * arrive while an event message still waits unstarted at the end of the queue are merged into it (its rows
 * appended, the header kept once), so rows queued during one turn come as one message. An external watcher's agent
 * runs outside the relay: the wake-up is written into its conversation, pending until it reads it.
 */
export async function deliverWakeup(deps: WakeupDeps, delivery: Delivery, wakeup: Wakeup): Promise<void> {
  await deps.deliveries.once(delivery, async (tx) => {
    // The session row lock also keeps the turn runner from claiming the waiting turn while it is merged into.
    const session = await tx.lockSession(wakeup.watcherSessionId);
    if (!session || session.archived) {
      deps.logger.info({ wakeupId: wakeup.wakeupId, sessionId: wakeup.watcherSessionId }, 'wake-up dropped: its session is gone or archived');
      return;
    }
    if (session.origin === 'external') {
      const { message: written, event } = buildQueuedMessage(
        deps.ids,
        session,
        { text: wakeup.text, role: 'event', provenance: null, senderSessionId: null, mode: session.mode },
        deps.clock.now(),
      );
      await tx.writeExternal(written, event.eventId);
      return;
    }
    if (deps.steer !== undefined) {
      const running = await tx.activeTurnId(session.id);
      // Steered last in the transaction: a redelivery after a failed commit could steer it twice, never lose it.
      if (running !== undefined && (await deps.steer(session.provider, session.id, wakeup.text))) {
        deps.logger.info({ wakeupId: wakeup.wakeupId, sessionId: session.id, turnId: running }, 'wake-up steered into the running turn');
        return;
      }
    }
    const last = await tx.lastQueuedMessage(session.id);
    if (last?.role === 'event') {
      const rows = wakeup.text.split('\n').slice(1).join('\n');
      await tx.setMessageText(last.id, `${last.text}\n${rows}`);
      return;
    }
    const records = buildQueuedMessage(
      deps.ids,
      session,
      { text: wakeup.text, role: 'event', provenance: null, senderSessionId: null, mode: session.mode },
      deps.clock.now(),
    );
    await tx.queueMessage(records);
  });
}
