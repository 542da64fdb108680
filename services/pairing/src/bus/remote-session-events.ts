/**
 * The consumer that keeps our sessions' events for paired relays' subscriptions: turn ends (and the error of a
 * failed one), questions, finished sub-agents and tasks, and archives (the watching relay ends what listed only
 * archived sessions), decoded from the session service's events, appended to every watch that takes them.
 */
import { consume, waitForStream, type Bus, type Consumer } from '@relay/bus';
import type { Clock } from '@relay/clock';
import { QuestionAsked, SessionArchived, SubagentFinished, TaskEnded, TaskStarted, TurnEnded } from '@relay/proto/relay/session/v1/events';
import { TurnStatus } from '@relay/proto/relay/session/v1/session';
import type { Logger } from '@relay/telemetry';
import { invalidEvent } from '../domain/errors.ts';
import type { RemoteWatchStore } from '../domain/remote-ports.ts';
import type { RemoteEventInput } from '../domain/remote-watch.ts';

// One filter subject: the nats-server here (before 2.10) takes no list of them.
export const REMOTE_SESSION_EVENTS_CONSUMER = { stream: 'SESSION_EVENTS', durable: 'pairing-remote-session-events', filterSubjects: ['relay.session.v1.>'] };


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

/** The events a paired relay may watch in one bus message; [] for a subject they do not use. */
export function decodeRemoteSessionEvent(subject: string, data: unknown): RemoteEventInput[] {
  if (subject === 'relay.session.v1.turn_ended') {
    const message = TurnEnded.fromJSON(data);
    const occurredAt = occurred(subject, message.eventId, message.occurredAt);
    const status = ENDINGS[message.status];
    if (status === undefined) throw invalidEvent(subject, `status ${String(message.status)} is not an ending`);
    const base = { userId: message.userId, sessionId: message.sessionId, refId: '', occurredAt };
    const events: RemoteEventInput[] = [{ ...base, id: message.eventId, kind: 'turn_end', text: message.text, status }];
    if (status === 'error') events.push({ ...base, id: `${message.eventId}:error`, kind: 'error', text: message.text, status: '' });
    return events;
  }
  if (subject === 'relay.session.v1.question_asked') {
    const message = QuestionAsked.fromJSON(data);
    const occurredAt = occurred(subject, message.eventId, message.occurredAt);
    const question = message.question;
    return [{ id: message.eventId, kind: 'question_asked', userId: message.userId, sessionId: message.sessionId, text: question?.question ?? '', status: '', refId: question?.id ?? '', occurredAt }];
  }
  if (subject === 'relay.session.v1.archived') {
    const message = SessionArchived.fromJSON(data);
    const occurredAt = occurred(subject, message.eventId, message.occurredAt);
    return [{ id: message.eventId, kind: 'archived', userId: message.userId, sessionId: message.sessionId, text: '', status: '', refId: '', occurredAt }];
  }
  if (subject === 'relay.session.v1.subagent_finished') {
    const message = SubagentFinished.fromJSON(data);
    const occurredAt = occurred(subject, message.eventId, message.occurredAt);
    return [{ id: message.eventId, kind: 'subagent_finished', userId: message.userId, sessionId: message.sessionId, text: message.description, status: '', refId: '', occurredAt }];
  }
  if (subject === 'relay.session.v1.task_started' || subject === 'relay.session.v1.task_finished' || subject === 'relay.session.v1.task_failed') {
    const message = subject === 'relay.session.v1.task_started' ? TaskStarted.fromJSON(data) : TaskEnded.fromJSON(data);
    const occurredAt = occurred(subject, message.eventId, message.occurredAt);
    const task = message.task;
    if (task === undefined || task.id === '') throw invalidEvent(subject, 'task.id is missing');
    const exitCode = task.exitCode ?? null;
    // A task that exited non-zero failed, whatever subject it came on (spec: "any task that failed or exited non-zero").
    const kind = subject === 'relay.session.v1.task_started' ? 'task_started' : subject === 'relay.session.v1.task_failed' || (exitCode !== null && exitCode !== 0) ? 'task_failed' : 'task_finished';
    const status = kind === 'task_started' || exitCode === null ? '' : String(exitCode);
    return [{ id: message.eventId, kind, userId: message.userId, sessionId: message.sessionId, text: task.description, status, refId: task.id, occurredAt }];
  }
  return [];
}

/** Starts the consumer once SESSION_EVENTS is declared (the session service may start after this one). */
export function startRemoteSessionEventsConsumer(bus: Bus, options: { watches: RemoteWatchStore; clock: Clock; logger: Logger }): Consumer {
  const spec = REMOTE_SESSION_EVENTS_CONSUMER;
  const stopping = new AbortController();
  const started = (async (): Promise<Consumer | undefined> => {
    if (!(await waitForStream(bus, spec.stream, { logger: options.logger, signal: stopping.signal }))) return undefined;
    return consume(bus, {
      ...spec,
      logger: options.logger,
      handler: async (message) => {
        const events = decodeRemoteSessionEvent(message.subject, message.data);
        if (events.length > 0) await options.watches.append(spec.durable, message.id, events, options.clock.now());
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
