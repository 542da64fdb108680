import { CardLimits } from './card-limits.ts';
import { CARD_KINDS, type Card, type CardKind } from './entities.ts';
import { invalidInput } from './errors.ts';
import type { CardDeps } from './ports.ts';

export interface RaiseCardInput {
  userId: string;
  sessionId: string;
  /** 'approval' or 'question'; anything else is refused. */
  kind: string;
  title: string;
  lines: string[];
  options: string[];
  /** An external session's call (a fingerprint of its action and arguments); unset or '' for none. */
  callKey?: string;
}

/** A new pending card from a raise request, or REMOTE_RELAY_INVALID_INPUT naming the first bad field. */
export function buildCard(input: RaiseCardInput, id: string, now: Date): Card {
  if (input.userId === '') throw invalidInput('user_id is required', { field: 'user_id' });
  if (input.sessionId === '') throw invalidInput('session_id is required', { field: 'session_id' });
  if (!isCardKind(input.kind)) throw invalidInput('kind must be approval or question', { field: 'kind' });
  const title = input.title.trim();
  if (title === '') throw invalidInput('title is required', { field: 'title' });
  if (title.length > CardLimits.TITLE_CHARS) throw invalidInput(`title is longer than ${CardLimits.TITLE_CHARS} characters`, { field: 'title' });
  if (input.lines.length > CardLimits.LINES) throw invalidInput(`a card shows at most ${CardLimits.LINES} lines`, { field: 'lines' });
  if (input.lines.some((line) => line.length > CardLimits.LINE_CHARS)) {
    throw invalidInput(`a line is longer than ${CardLimits.LINE_CHARS} characters`, { field: 'lines' });
  }
  const options = input.options.map((option) => option.trim());
  if (input.kind === 'approval' && options.length > 0) {
    throw invalidInput('an approval card takes no options: it is answered allow or deny', { field: 'options' });
  }
  if (options.length > CardLimits.OPTIONS) throw invalidInput(`a card offers at most ${CardLimits.OPTIONS} options`, { field: 'options' });
  if (options.some((option) => option === '' || option.length > CardLimits.OPTION_CHARS)) {
    throw invalidInput(`each option must be 1 to ${CardLimits.OPTION_CHARS} characters`, { field: 'options' });
  }
  if (new Set(options).size !== options.length) throw invalidInput('options must differ from each other', { field: 'options' });
  const callKey = input.callKey ?? '';
  if (callKey.length > CardLimits.CALL_KEY_CHARS) throw invalidInput(`call_key is longer than ${CardLimits.CALL_KEY_CHARS} characters`, { field: 'call_key' });
  return {
    id,
    userId: input.userId,
    sessionId: input.sessionId,
    kind: input.kind,
    title,
    lines: [...input.lines],
    options,
    status: 'pending',
    answer: '',
    choices: [],
    createdAt: now,
    decidedAt: undefined,
    callKey,
  };
}

/**
 * Validates and stores a new pending card. With a call key (an external session's call, which no turn
 * ends) the same call made again gets its earlier card instead: still pending (it waits on), or decided
 * within KEYED_DECISION_SECONDS and not used yet (the decision is used now). A used, cancelled or older
 * decision raises a new card.
 */
export async function raiseCard(deps: CardDeps, input: RaiseCardInput, now: Date): Promise<Card> {
  const card = buildCard(input, deps.ids.newCardId(), now);
  if (card.callKey !== '') {
    const decidedSince = new Date(now.getTime() - CardLimits.KEYED_DECISION_SECONDS * 1000);
    const earlier = await deps.store.reuseKeyed(card.sessionId, card.callKey, decidedSince, now);
    if (earlier !== undefined) return earlier;
  }
  await deps.store.create(card);
  return card;
}

function isCardKind(kind: string): kind is CardKind {
  return (CARD_KINDS as readonly string[]).includes(kind);
}
