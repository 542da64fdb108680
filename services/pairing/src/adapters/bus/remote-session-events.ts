/**
 * The consumer that keeps our sessions' events for paired relays' subscriptions: turn ends (and the error of a
 * failed one), questions, finished sub-agents and tasks, and archives (the watching relay ends what listed only
 * archived sessions), decoded from the session service's events, appended to every watch that takes them. A
 * removed user (relay.session.v1.user_removed) ends every pairing they made and their unspent codes (endUserPairings).
 */
import { consume, waitForStream, type Bus, type Consumer, type Delivered } from '@relay/bus';
import type { Clock } from '@relay/clock';
import { BusStreams, SessionEvents } from '@relay/proto/relay/bus-contracts';
import { TurnStatus } from '@relay/proto/relay/session/v1/session';
import type { Logger } from '@relay/telemetry';
import { invalidEvent } from '../../domain/errors.ts';
import type { RemoteWatchStore } from '../../app/remote-ports.ts';
import { keepSessionEvents } from '../../app/remote-watches.ts';
import { endUserPairings } from '../../app/end-user-pairings.ts';
import type { PairedRelayStore, PairingCodeStore } from '../../app/ports.ts';
import type { RemoteEventInput } from '../../domain/remote-watch.ts';

const WATCHED = [
  SessionEvents.TURN_ENDED,
  SessionEvents.QUESTION_ASKED,
  SessionEvents.ARCHIVED,
  SessionEvents.SUBAGENT_FINISHED,
  SessionEvents.TASK_STARTED,
  SessionEvents.TASK_FINISHED,
  SessionEvents.TASK_FAILED,
] as const;

/** This service's durable consumer of the session service's events a paired relay may watch, and of removed users. */
const REMOTE_SESSION_EVENTS = {
  durable: 'pairing-remote-session-events',
  contracts: [...WATCHED, SessionEvents.USER_REMOVED],
  // One filter subject, the whole stream: the nats-server here (before 2.10) takes no list of them.
  wholeStream: BusStreams.SESSION_EVENTS,
} as const;

/** A session event a paired relay may watch, decoded. */
type WatchedSessionEvent = Delivered<(typeof WATCHED)[number]>;

const ENDINGS: Partial<Record<TurnStatus, string>> = {
  [TurnStatus.TURN_STATUS_DONE]: 'done',
  [TurnStatus.TURN_STATUS_ERROR]: 'error',
  [TurnStatus.TURN_STATUS_STOPPED]: 'stopped',
};

function occurred(subject: string, eventId: string, occurredAt: Date | undefined): Date {
  if (eventId === '') throw invalidEvent(subject, 'eventId is missing');
  if (occurredAt === undefined || Number.isNaN(occurredAt.getTime())) throw invalidEvent(subject, 'occurredAt is missing');
  return occurredAt;
}

/** The events a paired relay may watch in one bus message. */
export function decodeRemoteSessionEvent(event: WatchedSessionEvent): RemoteEventInput[] {
  const { subject } = event;
  switch (event.subject) {
    case SessionEvents.TURN_ENDED.subject: {
      const message = event.data;
      const occurredAt = occurred(subject, message.eventId, message.occurredAt);
      const status = ENDINGS[message.status];
      if (status === undefined) throw invalidEvent(subject, `status ${String(message.status)} is not an ending`);
      const base = { userId: message.userId, sessionId: message.sessionId, refId: '', occurredAt };
      const events: RemoteEventInput[] = [{ ...base, id: message.eventId, kind: 'turn_end', text: message.text, status }];
      if (status === 'error') events.push({ ...base, id: `${message.eventId}:error`, kind: 'error', text: message.text, status: '' });
      return events;
    }
    case SessionEvents.QUESTION_ASKED.subject: {
      const message = event.data;
      const occurredAt = occurred(subject, message.eventId, message.occurredAt);
      const question = message.question;
      return [
        {
          id: message.eventId,
          kind: 'question_asked',
          userId: message.userId,
          sessionId: message.sessionId,
          text: question?.question ?? '',
          status: '',
          refId: question?.id ?? '',
          occurredAt,
        },
      ];
    }
    case SessionEvents.ARCHIVED.subject: {
      const message = event.data;
      const occurredAt = occurred(subject, message.eventId, message.occurredAt);
      return [{ id: message.eventId, kind: 'archived', userId: message.userId, sessionId: message.sessionId, text: '', status: '', refId: '', occurredAt }];
    }
    case SessionEvents.SUBAGENT_FINISHED.subject: {
      const message = event.data;
      const occurredAt = occurred(subject, message.eventId, message.occurredAt);
      return [
        {
          id: message.eventId,
          kind: 'subagent_finished',
          userId: message.userId,
          sessionId: message.sessionId,
          text: message.description,
          status: '',
          refId: '',
          occurredAt,
        },
      ];
    }
    case SessionEvents.TASK_STARTED.subject:
    case SessionEvents.TASK_FINISHED.subject:
    case SessionEvents.TASK_FAILED.subject: {
      const message = event.data;
      const occurredAt = occurred(subject, message.eventId, message.occurredAt);
      const task = message.task;
      if (task === undefined || task.id === '') throw invalidEvent(subject, 'task.id is missing');
      const exitCode = task.exitCode ?? null;
      // A task that exited non-zero failed, whatever subject it came on (spec: "any task that failed or exited non-zero").
      const kind =
        subject === SessionEvents.TASK_STARTED.subject
          ? 'task_started'
          : subject === SessionEvents.TASK_FAILED.subject || (exitCode !== null && exitCode !== 0)
            ? 'task_failed'
            : 'task_finished';
      const status = kind === 'task_started' || exitCode === null ? '' : String(exitCode);
      return [{ id: message.eventId, kind, userId: message.userId, sessionId: message.sessionId, text: task.description, status, refId: task.id, occurredAt }];
    }
  }
}

/** Starts the consumer once SESSION_EVENTS is declared (the session service may start after this one). */
export function startRemoteSessionEventsConsumer(
  bus: Bus,
  options: { watches: RemoteWatchStore; relays: PairedRelayStore; codes: PairingCodeStore; clock: Clock; logger: Logger },
): Consumer {
  const spec = REMOTE_SESSION_EVENTS;
  const stopping = new AbortController();
  const started = (async (): Promise<Consumer | undefined> => {
    if (!(await waitForStream(bus, spec.wholeStream.name, { logger: options.logger, signal: stopping.signal }))) return undefined;
    return consume(bus, {
      durable: spec.durable,
      contracts: spec.contracts,
      wholeStream: spec.wholeStream,
      logger: options.logger,
      handler: async (message) => {
        if (message.subject === SessionEvents.USER_REMOVED.subject) {
          const { eventId, userId } = message.data;
          if (eventId === '' || userId === '') throw invalidEvent(message.subject, 'eventId or userId is missing');
          const ended = await endUserPairings(options, { eventId, userId }, options.clock.now());
          options.logger.info({ userId, unpaired: ended.unpaired, codes: ended.codes }, 'the pairings of a removed user ended');
          return;
        }
        await keepSessionEvents(options.watches, { consumer: spec.durable, id: message.id }, decodeRemoteSessionEvent(message), options.clock.now());
      },
    });
  })();
  started.catch((error: unknown) => options.logger.error({ err: error }, 'the remote session events consumer did not start'));
  return {
    async stop() {
      stopping.abort();
      const consumer = await started.catch(() => undefined);
      await consumer?.stop();
    },
  };
}
