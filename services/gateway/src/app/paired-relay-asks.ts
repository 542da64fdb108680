/**
 * The asks a paired relay keeps here (/relay/v1/asks; spec, ask: "An ask about a session on a paired relay is kept
 * on that relay"): each acts for the user who owns the pairing, and its asking conversation is the calling relay's,
 * never one of ours.
 */
import type { AuthenticateRelayResponse as RelayCaller } from '@relay/proto/relay/pairing/v1/pairing_service';
import type { Ask } from '@relay/proto/relay/question/v1/question_service';
import { answered } from '../domain/answers.ts';
import { toolError } from '../domain/errors.ts';
import type { QuestionClient, SessionClient } from './ports.ts';
import { readSession } from './session-reads.ts';
import { keepAsk } from './asks-about.ts';

/** What a paired relay asks about one of our sessions (POST /relay/v1/asks). */
export interface PairedRelayAsk {
  askingSessionId: string;
  /** The session here the ask is about. */
  session: string;
  question: string;
  options: string[];
  recommendation: string;
  detail: string;
  dryRun: boolean;
}

interface Owners {
  sessions: SessionClient;
  questions: QuestionClient;
}

/** Keeps the ask (or, on a dry run, checks it); REMOTE_RELAY_ARCHIVED for an archived session. */
export async function keepPairedRelayAsk(owners: Owners, caller: RelayCaller, input: PairedRelayAsk): Promise<Ask> {
  const { session } = await readSession(owners.sessions, caller.userId, input.session, 1);
  if (session.archived) throw toolError('REMOTE_RELAY_ARCHIVED', `ask: session ${input.session} is archived. Nothing was asked.`);
  const { ask } = await keepAsk(owners, {
    userId: caller.userId,
    askingSessionId: remoteAsker(caller.relayName, input.askingSessionId),
    aboutSessionId: session.id,
    question: input.question,
    options: input.options,
    recommendation: input.recommendation,
    detail: input.detail,
    dryRun: input.dryRun,
  });
  return answered(ask, 'Ask', 'ask');
}

/** The asks the calling relay's conversation asked here: pending, and ended within the day. */
export async function pairedRelayAsks(owners: Pick<Owners, 'questions'>, caller: RelayCaller, askingSessionId: string): Promise<Ask[]> {
  const request = { userId: caller.userId, askingSessionId: remoteAsker(caller.relayName, askingSessionId), aboutSessionId: '', pendingOnly: false };
  return (await owners.questions.listAsks(request)).asks;
}

/** One of those asks; REMOTE_RELAY_NOT_FOUND when that conversation keeps no such ask here. */
export async function pairedRelayAsk(owners: Pick<Owners, 'questions'>, caller: RelayCaller, askingSessionId: string, askId: string): Promise<Ask> {
  const ask = (await pairedRelayAsks(owners, caller, askingSessionId)).find((candidate) => candidate.id === askId);
  if (ask === undefined) throw toolError('REMOTE_RELAY_NOT_FOUND', `No question ${askId} of that conversation is kept here.`);
  return ask;
}

/** Withdraws one of those asks. */
export async function withdrawPairedRelayAsk(owners: Pick<Owners, 'questions'>, caller: RelayCaller, askingSessionId: string, askId: string): Promise<Ask> {
  const { ask } = await owners.questions.withdrawAsk({ userId: caller.userId, askingSessionId: remoteAsker(caller.relayName, askingSessionId), askId });
  return answered(ask, 'WithdrawAsk', 'ask');
}

/** The asking conversation as this relay keeps it: on the calling relay, never one of ours. */
function remoteAsker(relay: string, askingSessionId: string): string {
  return `${relay}/${askingSessionId}`;
}
