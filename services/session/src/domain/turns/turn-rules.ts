/**
 * The turn runtime's rules, as pure functions of their inputs and `now`: leases, what a claim does
 * with the turn it got, how a turn ends, and the session state that follows.
 */
import type { EndedTurnStatus, PendingQuestion } from './turn.ts';

/** How long a claim holds a turn without renewal (relay clock). */
export const TURN_LEASE_MS = 30_000;
/** How often the runner renews the leases of its turns (relay clock); well inside TURN_LEASE_MS. */
export const LEASE_RENEW_MS = 10_000;
/** What a turn says when its runner died (or shut down) while it ran. */
export const RELAY_STOPPED_ERROR = 'the relay stopped while this turn ran; send it again';
/** At most this much of the reply travels in turn_ended (spec: "the start of the reply"). */
export const REPLY_START_CHARS = 500;

/** The lease a claim or renewal takes at `now`. */
export function leaseUntil(now: Date, leaseMs: number = TURN_LEASE_MS): Date {
  return new Date(now.getTime() + leaseMs);
}

/** A running turn whose lease ran out: its runner stopped renewing, so it is dead. */
export function isLeaseExpired(lease: Date | null, now: Date): boolean {
  return lease === null || lease.getTime() < now.getTime();
}

/** When a turn started at `startedAt` overruns the relay's Max turn duration. */
export function turnDeadline(startedAt: Date, maxTurnMinutes: number): Date {
  return new Date(startedAt.getTime() + maxTurnMinutes * 60_000);
}

/** The error of a turn that ran longer than Max turn duration. */
export function overrunError(maxTurnMinutes: number): string {
  return `the turn ran longer than this relay's Max turn duration (${maxTurnMinutes} minute${maxTurnMinutes === 1 ? '' : 's'})`;
}

/** The error of a turn whose session's provider cannot run turns here. */
export function providerCannotRunError(provider: string): string {
  return `provider "${provider}" does not run turns on this relay`;
}

/** What a claimed queued turn looks like to the claim rule. */
export interface ClaimCandidate {
  stopRequested: boolean;
  sessionArchived: boolean;
  provider: string;
}

/** What a claim does with its turn: run it under a lease, or end it at once. */
export type ClaimPlan = { kind: 'run'; startedAt: Date; leaseUntil: Date } | { kind: 'end'; ending: TurnEnding };

/**
 * Decides what the runner does with the queued turn it claimed at `now`: a stop requested before it
 * started, or an archived session, ends it stopped; a provider this relay cannot run ends it with an
 * error; otherwise it runs under a fresh lease.
 */
export function planClaim(candidate: ClaimCandidate, options: { now: Date; canRun: (provider: string) => boolean; leaseMs?: number }): ClaimPlan {
  if (candidate.stopRequested || candidate.sessionArchived) return { kind: 'end', ending: endTurnAs({ kind: 'stopped' }) };
  if (!options.canRun(candidate.provider)) {
    return { kind: 'end', ending: endTurnAs({ kind: 'failed', error: providerCannotRunError(candidate.provider) }) };
  }
  return { kind: 'run', startedAt: options.now, leaseUntil: leaseUntil(options.now, options.leaseMs) };
}

/** How a turn came to an end, as the runner saw it. */
export type TurnOutcome =
  | { kind: 'replied'; text: string; model: string }
  | { kind: 'failed'; error: string }
  | { kind: 'stopped' }
  | { kind: 'overran'; maxTurnMinutes: number }
  | { kind: 'relay_stopped' };

/** The columns a turn ends with. */
export interface TurnEnding {
  status: EndedTurnStatus;
  replyText: string;
  replyModel: string;
  error: string;
}

/** The ending an outcome writes: a reply is done, a stop is stopped, everything else an error with its reason. */
export function endTurnAs(outcome: TurnOutcome): TurnEnding {
  switch (outcome.kind) {
    case 'replied':
      return { status: 'done', replyText: outcome.text, replyModel: outcome.model, error: '' };
    case 'stopped':
      return { status: 'stopped', replyText: '', replyModel: '', error: '' };
    case 'failed':
      return { status: 'error', replyText: '', replyModel: '', error: outcome.error };
    case 'overran':
      return { status: 'error', replyText: '', replyModel: '', error: overrunError(outcome.maxTurnMinutes) };
    case 'relay_stopped':
      return { status: 'error', replyText: '', replyModel: '', error: RELAY_STOPPED_ERROR };
  }
}

/**
 * The row a failed turn leaves in its conversation (role `error`), so the person reading it (read_session,
 * `relay session show`, the console) sees why it ended and what they can do, not just their message and idle.
 */
export function turnFailedText(ending: TurnEnding): string {
  const advice = ending.error.includes('Max turn duration')
    ? ' Send the message again to go on; an admin can raise Max turn duration (Settings → Relays).'
    : /\bagain\b/.test(ending.error)
      ? ''
      : ' Send the message again to try once more.';
  return `This turn failed: ${ending.error}.${advice}`;
}

/** The text turn_ended carries: the start of the reply, or the error. */
export function turnEndedText(ending: TurnEnding): string {
  if (ending.status === 'error') return ending.error;
  return [...ending.replyText].slice(0, REPLY_START_CHARS).join('');
}

/** A session's state once its turns are counted: running_turn while one is queued, running or waiting. */
export function sessionStateFor(unfinishedTurns: number): 'running_turn' | 'idle' {
  return unfinishedTurns > 0 ? 'running_turn' : 'idle';
}

/** The questions after one is raised (raising the same card twice keeps one). */
export function withQuestion(questions: readonly PendingQuestion[], question: PendingQuestion): PendingQuestion[] {
  return [...questions.filter((q) => q.id !== question.id), question];
}

/** The questions after one is answered, dismissed or withdrawn. */
export function withoutQuestion(questions: readonly PendingQuestion[], questionId: string): PendingQuestion[] {
  return questions.filter((q) => q.id !== questionId);
}

/** A running turn waits for an answer while a question card of its own (ask_user) is pending. */
export function activeStatusFor(questions: readonly PendingQuestion[]): 'running' | 'waiting_for_answer' {
  return questions.some((q) => q.kind === 'ask_user') ? 'waiting_for_answer' : 'running';
}
