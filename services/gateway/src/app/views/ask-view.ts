import type { Ask } from '@relay/proto/relay/question/v1/question_service';
import { askStatusName } from './question-view.ts';
import { boundedFields } from './session-view.ts';

/**
 * An ask as list_questions shows it. Its question, detail and answer are each bounded as read_session bounds a
 * message; the user reads them whole in the Inbox (relay inbox, GET /api/v1/asks).
 */
export function askView(ask: Ask) {
  const status = askStatusName(ask.status);
  const { question, detail, answer, ...bounded } = boundedFields({
    question: ask.question,
    detail: ask.detail,
    answer: status === 'answered' ? ask.answer : '',
  });
  return {
    question_id: ask.id,
    question,
    options: ask.options,
    ...(ask.recommendation ? { recommendation: ask.recommendation } : {}),
    ...(detail ? { detail } : {}),
    status,
    session: ask.aboutSessionId,
    askedBy: ask.askingSessionId,
    ...(status === 'answered' ? { answer, choice: ask.choice } : {}),
    ...(ask.via ? { via: ask.via } : {}),
    createdAt: ask.createdAt?.toISOString() ?? null,
    endedAt: ask.endedAt?.toISOString() ?? null,
    ...bounded,
  };
}
