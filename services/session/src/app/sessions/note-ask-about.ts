import { invalidInput, notFound } from '../../domain/errors.ts';
import type { ConversationStore } from '../ports.ts';

/**
 * Records that an ask may be about the user's session from now on. The question service keeps asks; the gateway notes
 * each session an ask is about before the ask is kept, so a session never noted has none pending, and read_session
 * need not ask the question service about it (ReadSession's never_asked_about). The mark stays: idempotent.
 */
export async function noteAskAbout(deps: { store: Pick<ConversationStore, 'noteAskAbout'>; relay: { name: string } }, input: { userId: string; sessionId: string }): Promise<void> {
  if (input.userId === '') throw invalidInput('user_id is required', { field: 'user_id' });
  if (!(await deps.store.noteAskAbout(input.userId, input.sessionId))) {
    throw notFound(`No session '${input.sessionId}' on relay "${deps.relay.name}".`, { field: 'session' });
  }
}
