/**
 * Asks kept on a paired relay (spec, ask): the ask is kept there, about one of its sessions; this relay polls it
 * every 5 seconds while it is open, every 30 seconds while that relay does not answer, and once it is answered
 * or dismissed tells the asking conversation here (question_answered, via that relay). A withdrawn or ended ask
 * stops the polling; so does removing the pairing.
 */
/** Between polls of an open ask while its relay answers. */
export const ASK_POLL_MS = 5_000;
/** Between polls while its relay does not answer. */
export const ASK_POLL_OFFLINE_MS = 30_000;

export interface AskPollIntervals {
  onlineMs: number;
  offlineMs: number;
}

export const DEFAULT_ASK_POLL: AskPollIntervals = { onlineMs: ASK_POLL_MS, offlineMs: ASK_POLL_OFFLINE_MS };

/** An ask as the relay that keeps it shows it. */
export interface RemoteAskView {
  id: string;
  aboutSessionId: string;
  question: string;
  options: string[];
  /** pending, answered, dismissed, withdrawn or ended. */
  status: string;
  answer: string;
  choice: string;
  via: string;
  createdAt: Date | undefined;
  endedAt: Date | undefined;
}

/** One of this relay's asks on a paired relay, as the poll keeps it. */
export interface PolledAsk {
  relay: string;
  id: string;
  userId: string;
  askingSessionId: string;
  online: boolean;
}

export interface NewRemoteAsk {
  userId: string;
  askingSessionId: string;
  aboutSessionId: string;
  question: string;
  options: string[];
  recommendation: string;
  detail: string;
  dryRun: boolean;
}

/** What a poll leads to: keep polling (and when), or stop (after telling the asking conversation, if answered). */
export type PollPlan = { kind: 'again'; online: boolean; nextPollAt: Date } | { kind: 'answered' } | { kind: 'stop' };

/** The plan for a poll's outcome at `now`: undefined = that relay did not answer. */
export function planAskPoll(seen: RemoteAskView | undefined, now: Date, intervals: AskPollIntervals = DEFAULT_ASK_POLL): PollPlan {
  if (seen === undefined) return { kind: 'again', online: false, nextPollAt: new Date(now.getTime() + intervals.offlineMs) };
  if (seen.status === 'pending') return { kind: 'again', online: true, nextPollAt: new Date(now.getTime() + intervals.onlineMs) };
  if (seen.status === 'answered' || seen.status === 'dismissed') return { kind: 'answered' };
  return { kind: 'stop' };
}
