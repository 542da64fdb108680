import type { QuestionServiceService } from '@relay/proto/relay/question/v1/question_service';
import type { Callers } from '@relay/rpc';

const GATEWAY = ['gateway'] as const;

/**
 * Who may call each QuestionService RPC: the gateway for relay_tool's cards, the Inbox and asks; the session
 * service raises, awaits and cancels its agents' cards; the pairing service brings in the answers to asks kept
 * on paired relays.
 */
export const QUESTION_CALLERS = {
  raiseCard: ['gateway', 'session'],
  awaitCard: ['gateway', 'session'],
  decideCard: GATEWAY,
  listCards: GATEWAY,
  getCard: GATEWAY,
  cancelCards: ['session'],
  ask: GATEWAY,
  listAsks: GATEWAY,
  withdrawAsk: GATEWAY,
  answerAsk: GATEWAY,
  publishRemoteAnswer: ['pairing'],
  getNotificationSettings: GATEWAY,
  updateNotificationSettings: GATEWAY,
  addPushSubscription: GATEWAY,
  removePushSubscription: GATEWAY,
} satisfies Callers<typeof QuestionServiceService>;
