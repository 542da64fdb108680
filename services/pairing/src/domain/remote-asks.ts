/**
 * Asks kept on a paired relay (spec, ask): the ask is kept there, about one of its sessions; this relay polls it
 * every 5 seconds while it is open, every 30 seconds while that relay does not answer, and once it is answered
 * or dismissed tells the asking conversation here (question_answered, via that relay). A withdrawn or ended ask
 * stops the polling; so does removing the pairing.
 */
import { invalidInput } from './errors.ts';

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

/** A paired relay's /relay/v1/asks routes. */
export interface RemoteAsksLine {
  /** Throws that relay's refusal, or REMOTE_RELAY_OFFLINE / REMOTE_RELAY_AUTH. */
  open(relay: string, ask: NewRemoteAsk): Promise<RemoteAskView>;
  list(relay: string, askingSessionId: string): Promise<RemoteAskView[]>;
  withdraw(relay: string, askingSessionId: string, id: string): Promise<RemoteAskView>;
  /** The ask as it stands there; undefined when that relay did not answer. Throws NOT_FOUND when it has no such ask. */
  poll(relay: string, askingSessionId: string, id: string): Promise<RemoteAskView | undefined>;
}

/** This relay's asks on paired relays, polled by lease. */
export interface RemoteAskStore {
  keep(ask: PolledAsk, now: Date): Promise<void>;
  drop(relay: string, id: string): Promise<void>;
  /** Stops polling every ask kept on `relay`; returns how many. */
  dropRelay(relay: string): Promise<number>;
  claimDue(now: Date, leaseUntil: Date, limit: number): Promise<PolledAsk[]>;
  /** When the next ask is due for a poll; undefined while none is kept. */
  nextDueAt(): Promise<Date | undefined>;
  settle(relay: string, id: string, online: boolean, nextPollAt: Date): Promise<void>;
}

/** The question service: tells the asking conversation the answer. */
export interface RemoteAnswerSink {
  publish(answer: { userId: string; askingSessionId: string; askId: string; answer: string; choice: string; dismissed: boolean; via: string }): Promise<void>;
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

/** Keeps the ask on `relay` (a dry run only checks there) and, unless a dry run, starts polling it. */
export async function openRemoteAsk(relay: string, ask: NewRemoteAsk, deps: { line: RemoteAsksLine; asks: RemoteAskStore }, now: Date): Promise<RemoteAskView> {
  if (ask.aboutSessionId === '') throw invalidInput('An ask on a paired relay names the session there it is about.');
  const kept = await deps.line.open(relay, ask);
  if (!ask.dryRun) await deps.asks.keep({ relay, id: kept.id, userId: ask.userId, askingSessionId: ask.askingSessionId, online: true }, now);
  return kept;
}

/** Takes back an ask there and stops polling it. */
export async function withdrawRemoteAsk(relay: string, askingSessionId: string, id: string, deps: { line: RemoteAsksLine; asks: RemoteAskStore }): Promise<RemoteAskView> {
  const withdrawn = await deps.line.withdraw(relay, askingSessionId, id);
  await deps.asks.drop(relay, id);
  return withdrawn;
}

/** One poll of one ask: what it leads to, with the answer passed on before the polling stops. */
export async function pollRemoteAsk(
  ask: PolledAsk,
  deps: { line: RemoteAsksLine; sink: RemoteAnswerSink; intervals: AskPollIntervals },
  now: Date,
): Promise<PollPlan> {
  let seen: RemoteAskView | undefined;
  try {
    seen = await deps.line.poll(ask.relay, ask.askingSessionId, ask.id);
  } catch (error) {
    // That relay no longer has it (unpaired there, or its session deleted): nothing more will come.
    if (error instanceof Error && 'code' in error && error.code === 'REMOTE_RELAY_NOT_FOUND') return { kind: 'stop' };
    throw error;
  }
  const plan = planAskPoll(seen, now, deps.intervals);
  if (plan.kind === 'answered' && seen !== undefined) {
    await deps.sink.publish({
      userId: ask.userId,
      askingSessionId: ask.askingSessionId,
      askId: ask.id,
      answer: seen.answer,
      choice: seen.choice,
      dismissed: seen.status === 'dismissed',
      via: seen.via || ask.relay,
    });
  }
  return plan;
}
