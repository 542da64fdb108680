/**
 * The part of a send, create_session or wait result that says where the turn stands (spec,
 * Waiting and what comes back; decisions.md, Result status): session, message_id, status and delivery, with
 * reply, error or pendingQuestions as the status calls for, and openUrl when the relay has a public
 * address. Also the one-line summary of such a result.
 */
import { TurnStatus, type TurnResult } from '@relay/proto/relay/session/v1/session';
import { oneLine, quoteStart } from '../../domain/one-line.ts';
import { boundedField, pendingQuestionView } from './session-view.ts';
import { turnDeliveryName, type DeliveryName } from './delivery-view.ts';

/** Where a turn stands (decisions.md, Result status). */
export const TURN_STATUSES = ['queued', 'running', 'waiting_for_answer', 'done', 'error', 'stopped'] as const;
export type TurnStatusName = (typeof TURN_STATUSES)[number];

// A status this gateway does not know shows as running: not finished as far as it can tell, so the
// agent waits again rather than taking it for an answer.
const STATUS_NAMES: Record<number, TurnStatusName> = {
  [TurnStatus.TURN_STATUS_UNSPECIFIED]: 'running',
  [TurnStatus.TURN_STATUS_QUEUED]: 'queued',
  [TurnStatus.TURN_STATUS_RUNNING]: 'running',
  [TurnStatus.TURN_STATUS_WAITING_FOR_ANSWER]: 'waiting_for_answer',
  [TurnStatus.TURN_STATUS_DONE]: 'done',
  [TurnStatus.TURN_STATUS_ERROR]: 'error',
  [TurnStatus.TURN_STATUS_STOPPED]: 'stopped',
};

/** The one reading of a turn's status in the gateway: its name in results and summaries. */
export function turnStatusName(status: TurnStatus): TurnStatusName {
  return STATUS_NAMES[status] ?? 'running';
}

export interface TurnFields {
  status: TurnStatusName;
  session: string;
  message_id: string;
  reply?: { text: string; truncated?: true; length?: number; model: string };
  error?: string;
  errorTruncated?: true;
  pendingQuestions?: { id: string; kind: string; question: string; options: string[]; truncated?: true }[];
  openUrl?: string;
  /** How far the message has come: queued, delivered (its turn started) or failed. */
  delivery: DeliveryName;
}

/**
 * The result fields for `result`; openUrl when `openUrlBase` (the relay's public URL) is known. The reply, an
 * error and a pending question are bounded as read_session bounds a message (session-view.ts), for agents; the
 * user API asks for them `whole`.
 */
export function turnFields(result: TurnResult, openUrlBase: string | undefined, options: { whole?: boolean } = {}): TurnFields {
  const text = (value: string) => (options.whole === true ? { text: value } : boundedField(value));
  const error = text(result.error);
  const status = turnStatusName(result.status);
  return {
    status,
    session: result.sessionId,
    message_id: result.messageId,
    ...(status === 'done' ? { reply: { ...text(result.replyText), model: result.replyModel } } : {}),
    ...(status === 'error' ? { error: error.text, ...(error.truncated ? { errorTruncated: true as const } : {}) } : {}),
    ...(status === 'waiting_for_answer'
      ? { pendingQuestions: result.pendingQuestions.map((question) => (options.whole === true ? { ...question } : pendingQuestionView(question))) }
      : {}),
    ...(openUrlBase === undefined ? {} : { openUrl: sessionUrl(openUrlBase, result.sessionId) }),
    // Not in the spec's list: after its fields.
    delivery: turnDeliveryName(result.delivery, result.status),
  };
}

/** The link that opens a session on the relay whose public URL is `base`. */
export function sessionUrl(base: string, sessionId: string): string {
  return `${base.replace(/\/+$/, '')}/sessions/${encodeURIComponent(sessionId)}`;
}

/** The console's page of one card on the relay whose public URL is `base`, where its owner decides it. */
export function cardUrl(base: string, cardId: string): string {
  return `${base.replace(/\/+$/, '')}/cards/${encodeURIComponent(cardId)}`;
}

/** Where the turn stands, in the words of a summary: `done: "Yes. The deploy…"`, `running; call wait …`. */
export function turnPhrase(result: TurnResult): string {
  switch (turnStatusName(result.status)) {
    case 'done':
      return `done: ${quoteStart(result.replyText)}`;
    case 'error':
      return `error: ${oneLine(result.error, 120)}`;
    case 'stopped':
      return 'stopped';
    case 'waiting_for_answer': {
      const question = result.pendingQuestions[0]?.question;
      return question === undefined ? 'waiting for an answer' : `waiting for an answer to ${quoteStart(question)}`;
    }
    case 'queued':
      return `queued behind another turn; call wait with message_id ${result.messageId} for the reply`;
    case 'running':
      return `running; call wait with message_id ${result.messageId} for the reply`;
  }
}

/** The short form of an id that summaries show, as the spec's "session 3f9c2a1e". */
export function shortId(id: string): string {
  return id.length > 12 ? id.slice(0, 8) : id;
}
