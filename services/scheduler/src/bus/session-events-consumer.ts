import { consume, waitForStream, type Bus, type BusMessage, type Consumer } from '@relay/bus';
import type { Clock } from '@relay/clock';
import type { Logger } from '@relay/telemetry';
import type { ScheduleStore } from '../domain/ports.ts';

/** The session service's stream, the subjects the scheduler takes from it, and its durable consumer. */
export const SESSION_EVENTS = {
  stream: 'SESSION_EVENTS',
  durable: 'scheduler-session-events',
  // One filter: the NATS server here predates filter_subjects (2.10); the handler skips what it does not use.
  filterSubjects: ['relay.session.v1.>'],
} as const;

const ARCHIVED = 'relay.session.v1.archived';
/**
 * A turn took the message: it started, or it ended (a turn that never started ends too, e.g. stopped). A message
 * written into an external session's conversation waits in no queue: it is taken as it is written.
 */
const TAKEN = new Set(['relay.session.v1.turn_started', 'relay.session.v1.turn_ended', 'relay.session.v1.message_written']);

/**
 * Follows the sessions the schedules touch: a turn that starts (or ends) on a firing's message means the
 * message no longer waits (the next repeat may fire); an archived session ends every schedule firing into
 * it or set by it. Both writes are idempotent, so a redelivery changes nothing.
 */
export async function startSessionEventsConsumer(
  bus: Bus,
  deps: { store: ScheduleStore; clock: Clock; logger: Logger; changed: () => void; signal: AbortSignal },
): Promise<Consumer | undefined> {
  if (!(await waitForStream(bus, SESSION_EVENTS.stream, { logger: deps.logger, signal: deps.signal }))) return undefined;
  return consume(bus, {
    stream: SESSION_EVENTS.stream,
    durable: SESSION_EVENTS.durable,
    filterSubjects: [...SESSION_EVENTS.filterSubjects],
    logger: deps.logger,
    handler: (message) => handleSessionEvent(deps, message),
  });
}

/** Applies one session event to the schedules. */
export async function handleSessionEvent(deps: { store: ScheduleStore; clock: Clock; changed: () => void }, message: BusMessage): Promise<void> {
  const data = (message.data ?? {}) as { messageId?: unknown; sessionId?: unknown };
  if (message.subject === ARCHIVED) {
    if (typeof data.sessionId !== 'string') return;
    const ended = await deps.store.endForSession(data.sessionId, 'archived', deps.clock.now());
    if (ended > 0) deps.changed();
    return;
  }
  // Only messages a firing queued carry a firing id ("sch_…:<due time>") as their id.
  if (TAKEN.has(message.subject) && typeof data.messageId === 'string' && data.messageId.startsWith('sch_')) {
    await deps.store.markFiringTaken(data.messageId, deps.clock.now());
  }
}
