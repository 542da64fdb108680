import type { SessionActivity } from './session-activity.ts';

/** The session-activity projection, written once per delivered message. */
export interface SessionActivityStore {
  /**
   * In one transaction: records `messageId` as processed, reads the session's row (locked) and saves what
   * `update` returns (undefined leaves it). Returns false, changing nothing, when `messageId` was already processed.
   */
  updateOnce(
    messageId: string,
    sessionId: string,
    update: (current: SessionActivity | undefined) => SessionActivity | undefined,
  ): Promise<boolean>;
}
