/**
 * What the user API does beyond one call to an owner (/api/v1/sessions): a user's sessions with their watch marks,
 * a session read with its pending asks, one message of a session, a change to a session's title or group, the
 * paired relays a user's message mentions, and the wait for a turn.
 */
import type { ChatMessage, Session, TurnResult } from '@relay/proto/relay/session/v1/session';
import { UpdateSessionRequest, type UpdateSessionResponse } from '@relay/proto/relay/session/v1/session_service';
import type { Clock } from '@relay/clock';
import type { Logger } from '@relay/telemetry';
import { answered, type SessionRead } from '../domain/answers.ts';
import { toolError } from '../domain/errors.ts';
import { mentionedRelays } from '../domain/mentions.ts';
import { planWait, type WaitPlan } from '../domain/wait-seconds.ts';
import { watchMarks, type WatchMarks } from '../domain/watch-marks.ts';
import type { PairingClient, QuestionClient, SessionClient, SubscriptionClient } from './ports.ts';
import { reattachedWait } from './relay-tool/reattached-wait.ts';
import { readSession } from './session-reads.ts';
import { withPendingAsks } from './views/pending-asks.ts';
import { pendingAsksAbout } from './asks-about.ts';
import { waitingBySession } from './views/session-status.ts';

/**
 * The watch marks of the user's sessions. Best effort: a subscription service that does not answer (or none)
 * leaves the sessions without marks rather than the user without their sessions.
 */
export async function watchMarksOf(owners: { subscriptions?: SubscriptionClient; logger: Logger }, userId: string): Promise<(sessionId: string) => WatchMarks> {
  if (owners.subscriptions === undefined) return () => ({});
  try {
    return watchMarks((await owners.subscriptions.listUserSubscriptions({ userId })).subscriptions);
  } catch (error) {
    owners.logger.warn({ err: error }, 'subscriptions could not be read; the sessions show no watch marks');
    return () => ({});
  }
}

/**
 * How many cards and asks wait for the user in each of their sessions (a session's status says "waiting for you").
 * Best effort: a question service that does not answer (or none) leaves every count at 0 rather than the user
 * without their sessions.
 */
export async function waitingOf(
  owners: { questions?: QuestionClient; logger: Logger },
  userId: string,
  sessionId = '',
): Promise<(sessionId: string) => { cards: number; asks: number }> {
  if (owners.questions === undefined) return waitingBySession([], []);
  try {
    const [cards, asks] = await Promise.all([
      owners.questions.listCards({ userId, sessionId, pendingOnly: true }),
      owners.questions.listAsks({ userId, askingSessionId: sessionId, aboutSessionId: '', pendingOnly: true }),
    ]);
    return waitingBySession(cards.cards, asks.asks);
  } catch (error) {
    owners.logger.warn({ err: error }, 'cards and asks could not be read; the sessions show nothing waiting');
    return waitingBySession([], []);
  }
}

/**
 * The paired relays a user's message mentions. Best effort: a pairing service that does not answer (or none)
 * leaves the message queued with nothing unlocked, rather than refusing what the user wrote.
 */
export async function mentionsIn(owners: { pairing?: PairingClient; logger: Logger }, text: string): Promise<string[]> {
  if (owners.pairing === undefined) return [];
  try {
    return mentionedRelays(text, (await owners.pairing.listPairedRelays({})).relays);
  } catch (error) {
    owners.logger.warn({ err: error }, 'paired relays could not be read; the message unlocks none');
    return [];
  }
}

/** The session's `last` messages, with its pending asks when the question service is there. */
export async function readUserSession(
  owners: { sessions: SessionClient; questions?: QuestionClient },
  userId: string,
  sessionId: string,
  last: number,
): Promise<SessionRead> {
  const read = await readSession(owners.sessions, userId, sessionId, last);
  if (owners.questions === undefined) return read;
  return withPendingAsks(read, await pendingAsksAbout({ sessions: owners.sessions, questions: owners.questions }, userId, read));
}

/** How far back a message is looked for: the most messages one session read returns. */
const MESSAGE_LOOKBACK = 100;

/**
 * One message of the session, whole, named by its id or the start of it (as relay session show prints ids);
 * REMOTE_RELAY_NOT_FOUND when none of the last MESSAGE_LOOKBACK has such an id, REMOTE_RELAY_INVALID_INPUT when
 * several start so.
 */
export async function readUserMessage(sessions: SessionClient, userId: string, sessionId: string, messageId: string): Promise<ChatMessage> {
  const read = await sessions.readSession({ userId, sessionId, last: MESSAGE_LOOKBACK, readerSessionId: '' });
  const exact = read.messages.find((candidate) => candidate.id === messageId);
  if (exact !== undefined) return exact;
  const starting = read.messages.filter((candidate) => candidate.id.startsWith(messageId));
  if (starting.length === 1) return starting[0]!;
  if (starting.length > 1) {
    throw toolError(
      'REMOTE_RELAY_INVALID_INPUT',
      `'${messageId}' could be ${starting.length} messages of this session; give more of the id: ${starting.map((candidate) => candidate.id).join(', ')}.`,
    );
  }
  throw toolError(
    'REMOTE_RELAY_NOT_FOUND',
    `No message of this session has an id that is or starts with '${messageId}' (only its last ${MESSAGE_LOOKBACK} messages can be read whole; relay session show --json lists their ids).`,
  );
}

/** The user's own change to a session's title or group (no card: they are the one who would Allow it), and the session after it. */
export async function updateUserSession(
  sessions: SessionClient,
  userId: string,
  sessionId: string,
  change: { title?: string; group?: string },
): Promise<{ result: UpdateSessionResponse; session: Session }> {
  const result = await sessions.updateSession(UpdateSessionRequest.fromPartial({ userId, sessionId, ...change, allowed: true, dryRun: false }));
  return { result, session: (await readSession(sessions, userId, sessionId, 1)).session };
}

/** The user's wait for a turn: the message that started it, and how long they asked to wait. */
export interface UserWait {
  userId: string;
  sessionId: string;
  messageId: string;
  waitSeconds: number | undefined;
}

/**
 * The turn a message started, once it ends or the wait (capped by the relay's longest wait) runs out, with the
 * plan's note; no result when `signal` ended the wait (the user went away; the turn goes on). As every wait for the
 * person or a reply, a Wait the transport ends (a recycled connection, a session replica that stops or restarts) is
 * made again for the time left (reattachedWait): the turn is the session service's state, not the call's.
 */
export async function awaitUserTurn(
  sessions: SessionClient,
  wait: UserWait,
  signal: AbortSignal,
  clock?: Clock,
): Promise<{ result: TurnResult | undefined; plan: WaitPlan }> {
  const read = await sessions.getRelaySettings({});
  const plan = planWait('wait', wait.waitSeconds, answered(read.settings, 'GetRelaySettings', 'settings').maxWaitSeconds);
  const request = { userId: wait.userId, callerSessionId: '', sessionId: wait.sessionId, messageId: wait.messageId };
  const result = await reattachedWait({
    open: (left, round) => sessions.wait({ ...request, waitSeconds: left }, { signal: round }),
    answerOf: (event) => event.result,
    progress: async () => undefined,
    waitSeconds: plan.waitSeconds,
    signal,
    ...(clock === undefined ? {} : { clock }),
  });
  return { result, plan };
}
