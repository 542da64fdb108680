import { invalidInput, notFound } from '../../domain/errors.ts';
import type { ConversationStore } from '../ports.ts';

type Deps<K extends keyof ConversationStore> = { store: Pick<ConversationStore, K>; relay: { name: string } };

/**
 * Gives the user's session a new ask mark: an ask may be pending about it. The question service keeps asks; the
 * gateway notes each session an ask is about before the ask is kept and again once it is, so a session without a
 * mark has none pending, and read_session need not ask the question service about it (ReadSession's
 * never_asked_about).
 */
export async function noteAskAbout(deps: Deps<'noteAskAbout'>, input: { userId: string; sessionId: string }): Promise<void> {
  requireUser(input.userId);
  if (!(await deps.store.noteAskAbout(input.userId, input.sessionId))) throw noSuchSession(deps, input.sessionId);
}

/**
 * Takes the ask mark off the user's session after a read saw it (`mark`, ReadSession's ask_mark) and the question
 * service then had no ask pending about the session; answers whether it did. A mark given since stays: an ask being
 * kept is noted before and after it is kept, so its mark outlives any clear that raced with it.
 */
export async function clearAskMark(deps: Deps<'clearAskMark'>, input: { userId: string; sessionId: string; mark: number }): Promise<boolean> {
  requireUser(input.userId);
  const cleared = await deps.store.clearAskMark(input.userId, input.sessionId, input.mark);
  if (cleared === undefined) throw noSuchSession(deps, input.sessionId);
  return cleared;
}

function requireUser(userId: string): void {
  if (userId === '') throw invalidInput('user_id is required', { field: 'user_id' });
}

function noSuchSession(deps: { relay: { name: string } }, sessionId: string) {
  return notFound(`No session '${sessionId}' on relay "${deps.relay.name}".`, { field: 'session' });
}
