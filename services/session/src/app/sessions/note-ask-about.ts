import { invalidInput, noSuchSession } from '../../domain/errors.ts';
import type { ConversationStore } from '../ports.ts';

/**
 * Gives the user's session a new ask mark: an ask may be pending about it. The question service keeps asks; the
 * gateway notes each session an ask is about before the ask is kept and again once it is, so a session without a
 * mark has none pending, and read_session need not ask the question service about it (ReadSession's
 * never_asked_about).
 */
export async function noteAskAbout(
  deps: { store: Pick<ConversationStore, 'noteAskAbout'>; relay: { name: string } },
  input: { userId: string; sessionId: string },
): Promise<void> {
  if (input.userId === '') throw invalidInput('user_id is required', { field: 'user_id' });
  if (!(await deps.store.noteAskAbout(input.userId, input.sessionId))) throw noSuchSession(deps.relay.name, input.sessionId);
}

/**
 * Takes the ask mark off the user's session after a read saw it (`mark`, ReadSession's ask_mark) and the question
 * service then had no ask pending about the session; answers whether it did. A mark given since stays: an ask being
 * kept is noted before and after it is kept, so its mark outlives any clear that raced with it.
 */
export async function clearAskMark(
  deps: { store: Pick<ConversationStore, 'clearAskMark'>; relay: { name: string } },
  input: { userId: string; sessionId: string; mark: number },
): Promise<boolean> {
  if (input.userId === '') throw invalidInput('user_id is required', { field: 'user_id' });
  const cleared = await deps.store.clearAskMark(input.userId, input.sessionId, input.mark);
  if (cleared === undefined) throw noSuchSession(deps.relay.name, input.sessionId);
  return cleared;
}
