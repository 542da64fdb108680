/**
 * Asks and the sessions they are about. The question service keeps asks; the session service keeps, on each session,
 * an ask mark (NoteAskAbout gives it a new value, ClearAskMark takes it off). Every ask is kept through keepAsk, which
 * marks the session before the ask is kept and again once it is, so a session without a mark has no ask pending and a
 * read of it need not ask the question service (pendingAsksAbout). A read that finds a mark and then no ask pending
 * takes the mark off, unless a note gave it a new value meanwhile. A mark without an ask (a failed or refused one)
 * only costs that session's next read the question service's answer.
 */
import type { Ask, AskRequest, AskResponse } from '@relay/proto/relay/question/v1/question_service';
import type { QuestionClient, SessionClient } from './ports.ts';

/**
 * Keeps an ask (or, on a dry run, checks it and marks nothing), the session it is about marked before and after. The
 * second mark keeps the first from being taken off by a read that looked for asks while this one was being kept.
 */
export async function keepAsk(owners: { sessions: SessionClient; questions: QuestionClient }, request: AskRequest): Promise<AskResponse> {
  if (request.dryRun) return owners.questions.ask(request);
  // An ask about no other session is about the asking conversation (the question service reads it so too).
  const about = { userId: request.userId, sessionId: request.aboutSessionId || request.askingSessionId };
  await owners.sessions.noteAskAbout(about);
  const kept = await owners.questions.ask(request);
  await owners.sessions.noteAskAbout(about);
  return kept;
}

/**
 * The asks pending about a session just read: none, without asking the question service, when the read found no ask
 * mark on it (ReadSession's never_asked_about). When the question service has none pending, the mark the read saw
 * is taken off, so the session's next reads skip the question service again.
 */
export async function pendingAsksAbout(
  owners: { sessions: SessionClient; questions: QuestionClient },
  userId: string,
  read: { session: { id: string }; neverAskedAbout: boolean; askMark: number },
): Promise<Ask[]> {
  if (read.neverAskedAbout) return [];
  const { asks } = await owners.questions.listAsks({ userId, askingSessionId: '', aboutSessionId: read.session.id, pendingOnly: true });
  // A mark of 0 here comes from a session service that predates marks: there is nothing to take off. A mark that
  // cannot be taken off now costs only the next read's question to the question service, never this read's answer.
  if (asks.length === 0 && read.askMark !== 0) {
    await owners.sessions.clearAskMark({ userId, sessionId: read.session.id, askMark: read.askMark }).catch(() => undefined);
  }
  return asks;
}
