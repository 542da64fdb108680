import type { SessionActivity } from '../domain/session-activity.ts';

/** One delivered message's change to a session's row: what `update` returns from the row as it stands (undefined leaves it). */
export type SessionActivityUpdate = {
  messageId: string;
  sessionId: string;
  update: (current: SessionActivity | undefined) => SessionActivity | undefined;
};

/** The session-activity projection, written once per delivered message. */
export interface SessionActivityStore {
  /**
   * In one transaction, for each message not processed before, in their order: records its id as processed and saves
   * what its update makes of its session's row (locked). Answers the message ids applied; the others change nothing.
   */
  updateEachOnce(updates: readonly SessionActivityUpdate[]): Promise<Set<string>>;
}
