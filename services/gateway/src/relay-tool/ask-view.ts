import type { Ask } from '../ports.ts';

/** An ask as list_questions and the Inbox show it. */
export function askView(ask: Ask) {
  return {
    question_id: ask.id,
    question: ask.question,
    options: ask.options,
    ...(ask.recommendation ? { recommendation: ask.recommendation } : {}),
    ...(ask.detail ? { detail: ask.detail } : {}),
    status: ask.status,
    session: ask.aboutSessionId,
    askedBy: ask.askingSessionId,
    ...(ask.status === 'answered' ? { answer: ask.answer, choice: ask.choice } : {}),
    ...(ask.via ? { via: ask.via } : {}),
    createdAt: ask.createdAt?.toISOString() ?? null,
    endedAt: ask.endedAt?.toISOString() ?? null,
  };
}
