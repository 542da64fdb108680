/**
 * The part of a send, create_session or wait result that says where the turn stands (spec,
 * Waiting and what comes back; decisions.md, Result status): session, message_id and status, with
 * reply, error or pendingQuestions as the status calls for, and openUrl when the relay has a public
 * address. Also the one-line summary of such a result.
 */
import type { TurnResult } from '../ports.ts';
import { boundedField, pendingQuestionView } from '../session-view.ts';

export interface TurnFields {
  status: TurnResult['status'];
  session: string;
  message_id: string;
  reply?: { text: string; truncated?: true; length?: number; model: string };
  error?: string;
  errorTruncated?: true;
  pendingQuestions?: { id: string; kind: string; question: string; options: string[]; truncated?: true }[];
  openUrl?: string;
}

/**
 * The result fields for `result`; openUrl when `openUrlBase` (the relay's public URL) is known. The reply, an
 * error and a pending question are bounded as read_session bounds a message (session-view.ts), for agents; the
 * user API asks for them `whole`.
 */
export function turnFields(result: TurnResult, openUrlBase: string | undefined, options: { whole?: boolean } = {}): TurnFields {
  const text = (value: string) => (options.whole === true ? { text: value } : boundedField(value));
  const error = text(result.error);
  return {
    status: result.status,
    session: result.sessionId,
    message_id: result.messageId,
    ...(result.status === 'done' ? { reply: { ...text(result.replyText), model: result.replyModel } } : {}),
    ...(result.status === 'error' ? { error: error.text, ...(error.truncated ? { errorTruncated: true as const } : {}) } : {}),
    ...(result.status === 'waiting_for_answer'
      ? { pendingQuestions: result.pendingQuestions.map((question) => (options.whole === true ? { ...question } : pendingQuestionView(question))) }
      : {}),
    ...(openUrlBase === undefined ? {} : { openUrl: sessionUrl(openUrlBase, result.sessionId) }),
  };
}

/** The link that opens a session on the relay whose public URL is `base`. */
export function sessionUrl(base: string, sessionId: string): string {
  return `${base.replace(/\/+$/, '')}/sessions/${encodeURIComponent(sessionId)}`;
}

/** Where the turn stands, in the words of a summary: `done: "Yes. The deploy…"`, `running; call wait …`. */
export function turnPhrase(result: TurnResult): string {
  switch (result.status) {
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

/** The start of `text` on one line, quoted. */
export function quoteStart(text: string, max = 80): string {
  return `"${oneLine(text, max)}"`;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1).trimEnd()}…` : flat;
}
