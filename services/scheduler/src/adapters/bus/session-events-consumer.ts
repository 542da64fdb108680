import { consume, waitForStream, type Bus, type Consumer, type Delivered } from '@relay/bus';
import type { Clock } from '@relay/clock';
import { BusStreams, SessionEvents } from '@relay/proto/relay/bus-contracts';
import type { Logger } from '@relay/telemetry';
import type { ScheduleStore } from '../../app/ports.ts';
import { endSchedulesOfArchivedSession, endSchedulesOfRemovedUser, noteMessageTaken } from '../../app/schedule-actions.ts';

/**
 * This service's durable consumer of the session service's events: an archive, and a turn that took a message —
 * it started, or it ended (a turn that never started ends too, e.g. stopped). A message written into an external
 * session's conversation waits in no queue: it is taken as it is written.
 */
export const SESSION_EVENTS = {
  durable: 'scheduler-session-events',
  contracts: [SessionEvents.ARCHIVED, SessionEvents.USER_REMOVED, SessionEvents.TURN_STARTED, SessionEvents.TURN_ENDED, SessionEvents.MESSAGE_WRITTEN],
  // One filter, the whole stream: the NATS server here predates filter_subjects (2.10); the rest is acked unread.
  wholeStream: BusStreams.SESSION_EVENTS,
} as const;

/**
 * Follows the sessions the schedules touch: a turn that starts (or ends) on a firing's message means the
 * message no longer waits (the next repeat may fire); an archived session ends every schedule firing into
 * it or set by it, and a removed user every schedule of theirs. Both writes are idempotent, so a redelivery changes nothing.
 */
export async function startSessionEventsConsumer(
  bus: Bus,
  deps: { store: ScheduleStore; clock: Clock; logger: Logger; changed: () => void; signal: AbortSignal },
): Promise<Consumer | undefined> {
  if (!(await waitForStream(bus, SESSION_EVENTS.wholeStream.name, { logger: deps.logger, signal: deps.signal }))) return undefined;
  return consume(bus, {
    durable: SESSION_EVENTS.durable,
    contracts: SESSION_EVENTS.contracts,
    wholeStream: SESSION_EVENTS.wholeStream,
    logger: deps.logger,
    handler: (message) => handleSessionEvent(deps, message),
  });
}

/** Applies one session event to the schedules. */
export async function handleSessionEvent(
  deps: { store: ScheduleStore; clock: Clock; changed: () => void },
  message: Delivered<(typeof SESSION_EVENTS.contracts)[number]>,
): Promise<void> {
  if (message.subject === SessionEvents.ARCHIVED.subject) {
    if ((await endSchedulesOfArchivedSession(deps.store, message.data.sessionId, deps.clock.now())) > 0) deps.changed();
    return;
  }
  if (message.subject === SessionEvents.USER_REMOVED.subject) {
    if ((await endSchedulesOfRemovedUser(deps.store, message.data.userId, deps.clock.now())) > 0) deps.changed();
    return;
  }
  await noteMessageTaken(deps.store, message.data.messageId, deps.clock.now());
}
