/**
 * The part of a send, create_session or wait result that says where the turn stands (spec,
 * Waiting and what comes back; decisions.md, Result status): session, message_id and status, with
 * reply, error or pendingQuestions as the status calls for, and openUrl when the relay has a public
 * address. Also the one-line summary of such a result.
 */
import type { TurnResult } from '../ports.ts';

export interface TurnFields {
  status: TurnResult['status'];
  session: string;
  message_id: string;
  reply?: { text: string; model: string };
  error?: string;
  pendingQuestions?: { id: string; kind: string; question: string; options: string[] }[];
  openUrl?: string;
}

/** The result fields for `result`; openUrl when `openUrlBase` (the relay's public URL) is known. */
export function turnFields(result: TurnResult, openUrlBase: string | undefined): TurnFields {
  return {
    status: result.status,
    session: result.sessionId,
    message_id: result.messageId,
    ...(result.status === 'done' ? { reply: { text: result.replyText, model: result.replyModel } } : {}),
    ...(result.status === 'error' ? { error: result.error } : {}),
    ...(result.status === 'waiting_for_answer' ? { pendingQuestions: result.pendingQuestions.map(({ id, kind, question, options }) => ({ id, kind, question, options })) } : {}),
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
