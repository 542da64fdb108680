/**
 * What the session and question services' events mean to subscriptions: events a subscription may take
 * (with the text `match` looks in), urgent events for one conversation without a subscription, and archives.
 */
import type { RelayEvent } from '../delivery/index.ts';

/** One event a watched session produced; `session.title` is filled in from the projection when it is matched. */
export type SessionCandidate = { sourceEventId: string; kind: string; text: string; event: RelayEvent };

export type WatchInput =
  | { type: 'session_events'; userId: string; sessionId: string; senderSessionId: string | null; candidates: SessionCandidate[] }
  /**
   * An event for these conversations whatever they subscribed to: question_answered to the asking conversation,
   * and to the session asked about when the ask was made on its behalf.
   */
  | { type: 'direct'; userId: string; watcherSessionIds: string[]; sourceEventId: string; event: RelayEvent }
  | { type: 'archived'; userId: string; sessionId: string; occurredAt: Date };
