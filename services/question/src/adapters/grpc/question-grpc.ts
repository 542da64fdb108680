import { appError } from '@relay/errors';
import type { NotificationSettings as NotificationSettingsMessage, QuestionServiceServer } from '@relay/proto/relay/question/v1/question_service';
import { serveStream, serveUnary, UNAVAILABLE_CODE } from '@relay/rpc';
import type { Logger } from '@relay/telemetry';
import { answerAsk, ask, listAsks, publishRemoteAnswer, withdrawAsk, type AskDeps } from '../../app/ask-use-cases.ts';
import { awaitCard, type AwaitCardDeps } from '../../app/await-card.ts';
import { cancelCards } from '../../app/cancel-cards.ts';
import { decideCard, type DecideCardDeps } from '../../app/decide-card.ts';
import { listCards } from '../../app/list-cards.ts';
import { getCard } from '../../app/get-card.ts';
import { raiseCard } from '../../app/raise-card.ts';
import type { AskReads } from '../../app/ports.ts';
import {
  addPushSubscription,
  notificationView,
  removePushSubscription,
  updateNotificationSettings,
  type NotificationDeps,
  type NotificationView,
} from '../../app/notifications.ts';
import { toAskMessage } from './wire/ask-wire.ts';
import { cardKindOf, deciderOf, toCardMessage } from './wire/card-wire.ts';

/** The generated server interface without grpc-js's index signature, which the handler types would map to never. */
type QuestionServiceMethods = { [K in keyof QuestionServiceServer as string extends K ? never : K]: QuestionServiceServer[K] };

export type QuestionGrpcDeps = DecideCardDeps &
  AwaitCardDeps &
  AskDeps &
  Pick<NotificationDeps, 'notifications' | 'senders'> & {
    /** ListAsks' reads. */
    askReads: AskReads;
    /** This relay's name: where an ask is answered when the request names no other. */
    relayName: string;
    logger: Logger;
    /** Aborts when the service stops: open AwaitCard streams end with UNAVAILABLE so callers await again elsewhere. */
    stopping: AbortSignal;
  };

/** relay.question.v1.QuestionService: decode the request, run the use case, encode the answer. */
export function questionGrpc(deps: QuestionGrpcDeps): ReturnType<typeof serveUnary> {
  const { clock, logger } = deps;
  return {
    ...serveUnary<QuestionServiceMethods>(logger, {
      raiseCard: async (request) => {
        const card = await raiseCard(
          deps,
          {
            userId: request.userId,
            sessionId: request.sessionId,
            kind: cardKindOf(request.kind),
            title: request.title,
            lines: request.lines,
            options: request.options,
            callKey: request.callKey,
            raiseId: request.raiseId,
          },
          clock.now(),
        );
        return { card: toCardMessage(card) };
      },
      decideCard: async (request) => {
        const card = await decideCard(
          deps,
          {
            userId: request.userId,
            cardId: request.cardId,
            decision: request.decision,
            answer: request.answer,
            choices: request.choices,
            by: deciderOf(request.decidedBy, request.agentSessionId),
            dryRun: request.dryRun,
          },
          clock.now(),
        );
        return { card: toCardMessage(card) };
      },
      listCards: async (request) => {
        const { cards, more } = await listCards(deps.store, { userId: request.userId, sessionId: request.sessionId, pendingOnly: request.pendingOnly });
        return { cards: cards.map(toCardMessage), more };
      },
      getCard: async (request) => ({ card: toCardMessage(await getCard(deps.store, { userId: request.userId, cardId: request.cardId })) }),
      cancelCards: async (request) => ({ cancelled: await cancelCards(deps, request.sessionId, clock.now()) }),
      ask: async (request) => ({
        ask: toAskMessage(
          await ask(
            deps,
            {
              userId: request.userId,
              askingSessionId: request.askingSessionId,
              aboutSessionId: request.aboutSessionId,
              question: request.question,
              options: request.options,
              recommendation: request.recommendation,
              detail: request.detail,
              dryRun: request.dryRun,
            },
            clock.now(),
          ),
        ),
      }),
      listAsks: async (request) => {
        const { asks, more } = await listAsks(
          deps.askReads,
          { userId: request.userId, askingSessionId: request.askingSessionId, aboutSessionId: request.aboutSessionId, pendingOnly: request.pendingOnly },
          clock.now(),
        );
        return { asks: asks.map(toAskMessage), more };
      },
      withdrawAsk: async (request) => ({
        ask: toAskMessage(
          await withdrawAsk(deps.asks, { userId: request.userId, askingSessionId: request.askingSessionId, askId: request.askId }, clock.now()),
        ),
      }),
      answerAsk: async (request) => ({
        ask: toAskMessage(
          await answerAsk(
            deps,
            {
              userId: request.userId,
              askId: request.askId,
              decision: request.decision,
              answer: request.answer,
              choice: request.choice,
              via: request.via || deps.relayName,
            },
            clock.now(),
          ),
        ),
      }),
      publishRemoteAnswer: async (request) => ({ published: await publishRemoteAnswer(deps, request, clock.now()) }),
      getNotificationSettings: async (request) => ({ settings: toSettingsMessage(await notificationView(deps, request.userId, clock.now())) }),
      updateNotificationSettings: async (request) => {
        const change = { webhookUrl: request.webhookUrl, cards: request.cards, asks: request.asks };
        return { settings: toSettingsMessage(await updateNotificationSettings(deps, request.userId, change, clock.now())) };
      },
      addPushSubscription: async (request) => {
        const target = { endpoint: request.endpoint, p256dh: request.p256dh, auth: request.auth };
        return { settings: toSettingsMessage(await addPushSubscription(deps, request.userId, target, clock.now())) };
      },
      removePushSubscription: async (request) => ({
        settings: toSettingsMessage(await removePushSubscription(deps, request.userId, request.endpoint, clock.now())),
      }),
    }),
    ...serveStream<QuestionServiceMethods>(logger, {
      awaitCard: async function* (request, signal) {
        const events = awaitCard(deps, { cardId: request.cardId, waitSeconds: request.waitSeconds }, AbortSignal.any([signal, deps.stopping]));
        let answered = false;
        for await (const event of events) {
          answered = 'card' in event;
          yield 'card' in event ? { card: toCardMessage(event.card) } : { progressSeconds: event.progressSeconds };
        }
        if (!answered && deps.stopping.aborted && !signal.aborted) {
          throw appError(UNAVAILABLE_CODE, 'the question service is restarting; await the card again');
        }
      },
    }),
  };
}

/** The settings as relay.question.v1.NotificationSettings. */
function toSettingsMessage(view: NotificationView): NotificationSettingsMessage {
  return { webhookUrl: view.webhookUrl, cards: view.cards, asks: view.asks, vapidPublicKey: view.vapidPublicKey, pushSubscriptions: view.pushSubscriptions };
}
