/**
 * Asks and the sessions they are about. The question service keeps asks; the session service keeps, on each session,
 * whether an ask was ever about it (NoteAskAbout, a mark that never clears). Every ask is kept through keepAsk, which
 * marks the session first, so a session the session service has never marked has no ask pending, and a read of it
 * need not ask the question service (pendingAsksAbout). A mark without an ask (a failed or refused one) only costs
 * that session's later reads the question service's answer.
 */
import type { Ask, AskRequest, AskResponse } from '@relay/proto/relay/question/v1/question_service';
import type { QuestionClient, SessionClient } from './ports.ts';

/** Keeps an ask (or, on a dry run, checks it and marks nothing), the session it is about marked first. */
export async function keepAsk(owners: { sessions: SessionClient; questions: QuestionClient }, request: AskRequest): Promise<AskResponse> {
  if (!request.dryRun) {
    // An ask about no other session is about the asking conversation (the question service reads it so too).
    await owners.sessions.noteAskAbout({ userId: request.userId, sessionId: request.aboutSessionId || request.askingSessionId });
  }
  return owners.questions.ask(request);
}

/**
 * The asks pending about a session just read: none, without asking the question service, when the read says no ask
 * was ever about it (ReadSession's never_asked_about).
 */
export async function pendingAsksAbout(questions: QuestionClient, userId: string, read: { session: { id: string }; neverAskedAbout: boolean }): Promise<Ask[]> {
  if (read.neverAskedAbout) return [];
  return (await questions.listAsks({ userId, askingSessionId: '', aboutSessionId: read.session.id, pendingOnly: true })).asks;
}
