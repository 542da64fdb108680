/**
 * A session's state as a person reads it at a glance (issue 40): working, waiting for you (and on what: a card, an
 * ask), idle, failed (with the error) or stopped — the same words in read_session, the user API, the console and the
 * CLI.
 */
import { TurnStatus, type LastTurn } from '@relay/proto/relay/session/v1/session';
import type { SessionStateName } from './session-view.ts';

export type SessionStatusName = 'working' | 'waiting_for_you' | 'idle' | 'failed' | 'stopped';

export interface SessionStatus {
  name: SessionStatusName;
  /** The words to show: "working", "waiting for you (card)", "idle", "failed: …", "stopped". */
  words: string;
  /** What waits for the person there (waiting_for_you only). */
  waitingFor?: { cards: number; asks: number };
  /** Why the last turn failed, whole (failed only). */
  error?: string;
}

/** What a status is read from: the session's state, what waits for its person there, and how its last turn ended. */
export interface StatusFacts {
  state: SessionStateName;
  cards: number;
  asks: number;
  /** The session's last_turn as ListSessions and ReadSession send it (unset: no turn of it has ended). */
  lastTurn?: Pick<LastTurn, 'status' | 'error'> | undefined;
}

/** The most characters of an error the words carry (the whole is in `error` and in the conversation). */
const ERROR_WORDS_LIMIT = 120;

/**
 * The status of a session: what waits for its person comes first (a turn held on a card is not "working"), then a
 * running turn or background work, then how the last turn ended — failed (with its error) or stopped — else idle. So
 * failed and stopped last while the session rests, and give way as soon as something runs or waits there again (a
 * message queued starts a turn: working); once that turn ends, its own ending is the last turn's.
 */
export function sessionStatus({ state, cards, asks, lastTurn }: StatusFacts): SessionStatus {
  if (cards + asks > 0) return { name: 'waiting_for_you', words: `waiting for you (${waitingWords(cards, asks)})`, waitingFor: { cards, asks } };
  if (state === 'running_turn') return { name: 'working', words: 'working' };
  if (state === 'background_only') return { name: 'working', words: 'working (background tasks)' };
  if (lastTurn?.status === TurnStatus.TURN_STATUS_ERROR) {
    const firstLine = lastTurn.error.split('\n')[0] ?? '';
    const shown = firstLine.length > ERROR_WORDS_LIMIT ? `${firstLine.slice(0, ERROR_WORDS_LIMIT - 1)}…` : firstLine;
    return { name: 'failed', words: `failed: ${shown}`, error: lastTurn.error };
  }
  if (lastTurn?.status === TurnStatus.TURN_STATUS_STOPPED) return { name: 'stopped', words: 'stopped' };
  return { name: 'idle', words: 'idle' };
}

/** "card", "2 cards", "ask", "card and ask", "2 cards and 1 ask". */
function waitingWords(cards: number, asks: number): string {
  const one = (count: number, noun: string) => (count === 0 ? '' : count === 1 ? noun : `${count} ${noun}s`);
  const parts = [one(cards, 'card'), one(asks, 'ask')].filter((part) => part !== '');
  if (cards > 1 && asks === 1) parts[1] = '1 ask';
  if (asks > 1 && cards === 1) parts[0] = '1 card';
  return parts.join(' and ');
}

/** How many cards and asks wait for the person in each session, from the question service's pending lists. */
export function waitingBySession(
  cards: readonly { sessionId: string }[],
  asks: readonly { askingSessionId: string }[],
): (sessionId: string) => { cards: number; asks: number } {
  const counts = new Map<string, { cards: number; asks: number }>();
  const of = (id: string) => counts.get(id) ?? counts.set(id, { cards: 0, asks: 0 }).get(id)!;
  for (const card of cards) of(card.sessionId).cards += 1;
  for (const ask of asks) of(ask.askingSessionId).asks += 1;
  return (sessionId) => counts.get(sessionId) ?? { cards: 0, asks: 0 };
}
