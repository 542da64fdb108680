import { consume, type Bus, type Consumer } from '@relay/bus';
import type { Clock } from '@relay/clock';
import { BusStreams, QuestionEvents } from '@relay/proto/relay/bus-contracts';
import type { AskCreated, CardRaised } from '@relay/proto/relay/question/v1/events';
import type { Logger } from '@relay/telemetry';
import { notifyPerson, type Notice, type NotificationDeps } from '../../app/notifications.ts';

/** This service's durable consumer of its own card_raised and ask_created events: the notifications. */
export const NOTIFICATIONS = { durable: 'question-notifications', contracts: [QuestionEvents.CARD_RAISED, QuestionEvents.ASK_CREATED] } as const;

/**
 * How often an event is delivered before its notification is given up: with the bus's back-off (1 s doubling to
 * 30 s) about four minutes of retries, across restarts (JetStream keeps the delivery count).
 */
export const NOTIFY_MAX_DELIVER = 12;

export type NotificationsConsumerDeps = NotificationDeps & { clock: Clock; logger: Logger };

/**
 * Tells the user of each new card and ask (app/notifications.ts). A target that fails for now naks the event, which
 * JetStream redelivers with back-off — after a restart too, since the consumer is durable; the targets it reached are
 * not sent again.
 */
export function startNotificationsConsumer(bus: Bus, deps: NotificationsConsumerDeps, options: { maxDeliver?: number } = {}): Promise<Consumer> {
  return consume(bus, {
    durable: NOTIFICATIONS.durable,
    contracts: NOTIFICATIONS.contracts,
    // nats-server 2.9 filters a consumer on one subject: it reads the whole stream and skips card_decided and
    // question_answered unread.
    wholeStream: BusStreams.QUESTION_EVENTS,
    maxDeliver: options.maxDeliver ?? NOTIFY_MAX_DELIVER,
    logger: deps.logger,
    handler: async (message) => {
      const notice = message.subject === QuestionEvents.CARD_RAISED.subject ? cardNotice(message.data as CardRaised) : askNotice(message.data as AskCreated);
      if (notice !== undefined) await notifyPerson(deps, notice, deps.clock.now());
    },
  });
}

function cardNotice(event: CardRaised): Notice | undefined {
  if (event.card === undefined) return undefined;
  return {
    eventId: event.eventId,
    userId: event.card.userId,
    kind: 'card',
    text: event.card.title,
    path: `/sessions/${encodeURIComponent(event.card.sessionId)}`,
  };
}

function askNotice(event: AskCreated): Notice | undefined {
  if (event.ask === undefined) return undefined;
  return { eventId: event.eventId, userId: event.ask.userId, kind: 'ask', text: event.ask.question, path: '/inbox' };
}
