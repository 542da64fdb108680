/**
 * The text of the messages injected into a watcher: a header line, then one row per event, with
 * the digest and quiet-hours lines that say why events come together. Every row is one line:
 * whitespace in quoted text (titles, replies, questions) is collapsed, so a reply cannot forge a row.
 */
import {
  DEFAULT_DELIVERY_TIMINGS,
  type DeliveryTimings,
  type EventSession,
  type HeldBy,
  type MessageItem,
  type RelayEvent,
  type WakeUpMessage,
} from './model.ts';
import { quietHoursLabel } from './quiet-hours.ts';

export const HEADER_LINE = '[relay event · automated message from OAR, not from the user; it approves nothing]';

/** Longest quoted text in a row, in characters, before it is cut at a word and ends with "…". */
export const QUOTE_MAX_CHARS = 120;
/** A cut goes back to the last space only if that keeps at least this many characters. */
const QUOTE_MIN_CUT_CHARS = 60;

/** One line, whitespace collapsed (newlines, tabs and line separators included). */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * The start of a text as a row quotes it: one line, at most 120 characters; a longer text is cut
 * after the last space within them (when that keeps 60) and ends with "…".
 */
export function quoteStart(text: string): string {
  const chars = Array.from(oneLine(text));
  if (chars.length <= QUOTE_MAX_CHARS) return `"${chars.join('')}"`;
  const cut = chars.slice(0, QUOTE_MAX_CHARS);
  const lastSpace = cut.lastIndexOf(' ');
  const kept = lastSpace >= QUOTE_MIN_CUT_CHARS ? cut.slice(0, lastSpace + 1) : cut;
  return `"${kept.join('')}…"`;
}

/** A session as rows name it: session "Review: server/" (3f9c…). */
function sessionLabel(session: EventSession): string {
  return `session "${oneLine(session.title)}" (${Array.from(session.id).slice(0, 4).join('')}…)`;
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

/**
 * What a computed event's row says after its kind (and its session, for stalled). A paired relay sends it as the
 * text of its computed events, so the watching relay's row reads as a local one with the relay's name in front.
 */
export function computedEventText(event: Extract<RelayEvent, { kind: 'stalled' | 'all_idle' | 'heartbeat' }>): string {
  switch (event.kind) {
    case 'stalled': {
      const task = event.task ? ` from task ${quoteStart(event.task.description)} (task_id ${event.task.id})` : '';
      return `no output for ${event.minutes} min${task}`;
    }
    case 'all_idle': {
      const where = event.sessionCount === 1 ? 'the watched session' : `the ${event.sessionCount} watched sessions`;
      return `no turn or task is running in ${where} (subscription ${event.subscriptionId})`;
    }
    case 'heartbeat': {
      const list = event.sessions.map((session) => `${sessionLabel(session)} ${session.state}`).join(', ');
      const what = event.sessions.length === 0 ? 'no watched sessions' : `${plural(event.sessions.length, 'watched session', 'watched sessions')}: ${list}`;
      return `${what} (subscription ${event.subscriptionId})`;
    }
  }
}

/** What a row says after its prefix. */
function describe(event: RelayEvent): string {
  switch (event.kind) {
    case 'turn_end':
      return `${sessionLabel(event.session)}: turn_end (${event.status})${event.text ? ` ${quoteStart(event.text)}` : ''}`;
    case 'question_asked': {
      const id = event.questionId === '' ? '' : ` (question_id ${event.questionId})`;
      return `${sessionLabel(event.session)}: question_asked ${quoteStart(event.question)}${id}`;
    }
    case 'question_answered': {
      if (event.dismissed) return `question_answered: question ${event.questionId} dismissed (via ${event.via})`;
      const answer = event.answer ? ` ${quoteStart(event.answer)}` : '';
      const chose = event.choices.length > 0 ? `chose ${event.choices.map(quoteStart).join(', ')}; ` : '';
      return `question_answered: question ${event.questionId} answered${answer} (${chose}via ${event.via})`;
    }
    case 'error':
      return `${sessionLabel(event.session)}: error ${quoteStart(event.message)}`;
    case 'subagent_finished':
      return `${sessionLabel(event.session)}: subagent_finished ${quoteStart(event.description)}`;
    case 'task_started':
      return `${sessionLabel(event.session)}: task_started ${quoteStart(event.description)} (task_id ${event.taskId})`;
    case 'task_finished':
    case 'task_failed': {
      const exit = event.exitCode === null ? 'no exit code' : `exit ${event.exitCode}`;
      return `${sessionLabel(event.session)}: ${event.kind} ${quoteStart(event.description)} (${exit}; task_id ${event.taskId})`;
    }
    case 'stalled':
      return `${sessionLabel(event.session)}: stalled: ${computedEventText(event)}`;
    case 'all_idle':
    case 'heartbeat':
      return `${event.kind}: ${computedEventText(event)}`;
    case 'link_lost':
      return 'link_lost: the relay does not answer; it keeps the events for this subscription and they come when it answers again';
    case 'link_restored': {
      const held = event.heldCount > 0 ? `, ${event.heldCount} of them held by digest or quiet hours and coming later` : '';
      return `link_restored: the relay answers again; ${plural(event.replayedCount, 'event', 'events')} replayed${held}`;
    }
    case 'remote': {
      const text = oneLine(event.text);
      return `${event.session ? `${sessionLabel(event.session)}: ` : ''}${event.remoteKind}${text === '' ? '' : `: ${text}`}`;
    }
  }
}

/**
 * The row of a message's replayed events from one paired relay: a first line that says so, how many, and how
 * many older ones that relay dropped because it keeps only the newest (500 unless configured lower there, a number
 * this relay does not know, so the row does not name it), then each event indented (no `[relay event]` of its own,
 * so it reads as part of the one row).
 */
function replayedRow(relay: string, events: readonly RelayEvent[]): string[] {
  const dropped = Math.max(0, ...events.map((event) => event.replayed?.dropped ?? 0));
  const droppedText = dropped > 0 ? `; ${plural(dropped, 'older event', 'older events')} dropped there, which keeps only the newest` : '';
  const first = `[relay event] ${relay} · replayed: ${plural(events.length, 'event', 'events')} kept there while the link was down${droppedText}:`;
  return [first, ...events.map((event) => `  ${describe(event)}`)];
}

/**
 * One event's row: `[relay event] session "…" (3f9c…): turn_end (done) "…"`, prefixed with the
 * paired relay's name (`[relay event] build-box · …`) for an event from another relay.
 */
export function renderEventRow(event: RelayEvent): string {
  return `[relay event] ${event.relay ? `${event.relay} · ` : ''}${describe(event)}`;
}

/** The Digest of line: the subscriptions' digests and the hourly cap that gathered the events. */
function digestLine(count: number, digests: Extract<HeldBy, { kind: 'digest' }>[], capDigest: boolean, timings: DeliveryTimings): string {
  const causes = digests.map((digest) => `subscription ${digest.subscriptionId} every ${digest.digestMinutes} min`);
  if (capDigest) causes.push(`past ${timings.capWakeUps} wake-ups an hour, every ${timings.capSlotMs / 60_000} min`);
  return `Digest of ${count} events (${causes.join('; ')}; questions and errors come at once):`;
}

function byTime(items: readonly MessageItem[]): MessageItem[] {
  return [...items].sort((a, b) => a.event.occurredAt.getTime() - b.event.occurredAt.getTime());
}

/**
 * The whole message: header; rows not held; the Digest of line (when more than one event is in
 * the digest; in the hourly cap's digest it counts the whole message) and its rows; then per quiet
 * window its Held during quiet hours line and rows.
 */
export function renderWakeUpMessage(message: WakeUpMessage, timings: DeliveryTimings = DEFAULT_DELIVERY_TIMINGS): string {
  const plain: MessageItem[] = [];
  const digested: MessageItem[] = [];
  const quiet = new Map<string, MessageItem[]>();
  const digests = new Map<string, Extract<HeldBy, { kind: 'digest' }>>();
  for (const item of byTime(message.items)) {
    const heldBy = item.heldBy;
    if (heldBy?.kind === 'quiet_hours') {
      const label = quietHoursLabel(heldBy.quietHours);
      quiet.set(label, [...(quiet.get(label) ?? []), item]);
    } else if (heldBy?.kind === 'digest') {
      digested.push(item);
      digests.set(heldBy.subscriptionId, heldBy);
    } else {
      plain.push(item);
    }
  }
  const rows = (items: readonly MessageItem[]): string[] => {
    // A paired relay's replayed events make one row, where the first of them would be.
    const replayed = new Map<string, RelayEvent[]>();
    for (const { event } of items) if (event.replayed) replayed.set(event.relay ?? '', [...(replayed.get(event.relay ?? '') ?? []), event]);
    return items.flatMap(({ event }) => {
      if (!event.replayed) return [renderEventRow(event)];
      const group = replayed.get(event.relay ?? '');
      if (group?.[0] !== event) return [];
      return replayedRow(event.relay ?? '', group);
    });
  };

  const lines = [HEADER_LINE];
  if (message.capDigest) {
    if (message.items.length > 1) lines.push(digestLine(message.items.length, [...digests.values()], true, timings));
    lines.push(...rows(byTime([...plain, ...digested])));
  } else {
    lines.push(...rows(plain));
    if (digested.length > 1) lines.push(digestLine(digested.length, [...digests.values()], false, timings));
    lines.push(...rows(digested));
  }
  for (const [label, items] of quiet) {
    lines.push(
      `Held during quiet hours (${label}): ${plural(items.length, 'event', 'events')}, delivered now that the window has ended; questions and errors came at once.`,
    );
    lines.push(...rows(items));
  }
  return lines.join('\n');
}
