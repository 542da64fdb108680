/**
 * relay_tool's arguments, each once, as a zod schema: the one source for checking a call (arguments.ts) and
 * for the JSON Schema tools/list shows (relay-tool-definition.ts). Each action picks the ones it takes
 * (`argumentsOf`, in its own file under actions/). A string's schema carries the bound it keeps
 * (input-bounds.ts); a list's items and an object's values keep their argument's bound too.
 */
import { z } from 'zod';
import { MAX_LENGTH, MAX_LIST_ITEMS, type Bound } from './input-bounds.ts';

/** What the gateway knows of an argument besides its schema: the bound of its strings and how a refusal names its type. */
export interface ArgumentFacts {
  bound?: Bound;
  /** The type in a refusal's words: `"last" must be a whole number; got a string.` */
  expects: string;
}

/** Kept apart from zod's global registry, so these facts stay out of the JSON Schema. */
const FACTS = z.registry<ArgumentFacts>();

function argument<T extends z.ZodType>(schema: T, description: string, facts: ArgumentFacts): T {
  const described = schema.describe(description);
  FACTS.add(described, facts);
  return described;
}

const string = (bound: Bound, description: string) => argument(z.string().max(MAX_LENGTH[bound]), description, { bound, expects: 'a string' });
const integer = (description: string) => argument(z.int(), description, { expects: 'a whole number' });
const boolean = (description: string) => argument(z.boolean(), description, { expects: 'true or false' });
const strings = (bound: Bound, description: string) =>
  argument(z.array(z.string().max(MAX_LENGTH[bound])).max(MAX_LIST_ITEMS), description, { bound, expects: 'a list of strings' });
const object = (bound: Bound, description: string) => argument(z.record(z.string(), z.unknown()), description, { bound, expects: 'an object' });
const stringOrInteger = (bound: Bound, description: string) =>
  argument(z.union([z.string().max(MAX_LENGTH[bound]), z.int()]), description, { bound, expects: 'a string or a whole number' });

/** Every argument any action takes, with the sentence the tool schema shows. */
export const ARGUMENTS = {
  relay: string('name', '"this" (the relay you run on) or a paired relay\'s name or host, as list_relays shows it.'),
  scope: string('name', 'list_sessions: "active" (default), "archived" or "all".'),
  page: integer('list_sessions: which page of 100 sessions, the most recently active first (default 1).'),
  session: string('id', 'A session id, as list_sessions shows it.'),
  last: integer('read_session: how many recent messages (default 10, at most 100).'),
  task_id: string('id', 'read_task_output: the task id, as read_session shows it.'),
  lines: integer('read_task_output: how many lines of the end (default 50, at most 1000).'),
  text: string('text', 'The prompt to send, or the text a schedule queues.'),
  wait_seconds: integer("How long to wait for the reply; capped by the relay's longest wait (list_relays limits)."),
  provider: string('name', 'A provider id from relay_info.'),
  model: string('name', 'A model id from relay_info for that provider.'),
  mode: string('name', 'The relay mode: "agent", "ask" or "plan".'),
  effort: string('name', 'A reasoning effort the model offers (relay_info).'),
  cwd: string('path', 'The working folder of the session.'),
  repo: string('path', 'A repository, for a cloud session.'),
  branch: string('path', 'A branch, for a cloud session.'),
  title: string('name', 'A title for the session or schedule.'),
  group: string('name', 'A session group id or name, as relay_info lists them.'),
  auto_compact_window: stringOrInteger('name', 'update_session: the context window for auto-compaction ("auto" or tokens).'),
  thinking_enabled: boolean('update_session: whether the model thinks.'),
  thinking_display: string('name', 'update_session: how thinking is shown.'),
  message_id: string('id', 'wait: the message_id send or create_session returned; an external session waiting on its own conversation leaves it out.'),
  question_id: string('id', 'The id of a question card or ask.'),
  choices: strings('name', 'answer_question: the options picked.'),
  answer: string('text', 'answer_question: a free-text answer.'),
  sessions: strings('id', 'subscribe: the session ids to watch, or ["all"].'),
  events: strings(
    'name',
    'subscribe: the events to be woken for (default: question_asked, error, turn_end, subagent_finished, task_failed, stalled, all_idle).',
  ),
  exclude: strings('id', 'subscribe: sessions to leave out of sessions ["all"].'),
  once: boolean('subscribe: end the subscription after its first wake-up.'),
  match: string('name', 'subscribe: a text an event must contain.'),
  stalled_minutes: integer('subscribe: minutes without output before a running task counts as stalled.'),
  heartbeat_minutes: integer('subscribe: a summary wake-up every N minutes while watched sessions work.'),
  digest_minutes: integer('subscribe: gather events into one message every N minutes.'),
  quiet_hours: object('name', 'subscribe: { "from": "HH:MM", "to": "HH:MM", "tz": "Europe/Berlin" }; events inside wait until it ends.'),
  subscription_id: string('id', 'unsubscribe: a subscription id, or "all".'),
  watcher: string('id', "list_subscriptions: another conversation's session id."),
  from: string('id', 'transfer_subscriptions: the session id of the conversation to take them from.'),
  at: string('name', 'schedule: the first time, ISO 8601.'),
  every_minutes: integer('schedule: repeat every N minutes.'),
  schedule_id: string('id', 'unschedule: the schedule id.'),
  question: string('text', 'ask: the question for the user.'),
  options: strings('name', 'ask: the answers offered.'),
  recommendation: string('name', 'ask: the option you recommend.'),
  detail: string('text', 'ask: what the user needs to know to answer.'),
  budget: object(
    'name',
    'create_session, send (this relay\'s extension): a budget for the session you start or started, { "cost_usd": 2, "tokens": 200000, "minutes": 30, "sessions": 3 }; it only narrows the budget over your tree.',
  ),
  tree: boolean(
    "usage (this relay's extension): what your conversation's delegation tree (or, with session, that session's) spent, by session, provider and relay, and the budgets over it.",
  ),
};

export type ArgumentName = keyof typeof ARGUMENTS;

/** The arguments an action takes, each present only when given and not empty, with its checked type. */
export type ToolArguments = { [K in ArgumentName]?: z.infer<(typeof ARGUMENTS)[K]> };

/** The schema of the arguments an action takes, in the order the spec names them. */
export function argumentsOf<const K extends ArgumentName>(...names: K[]): z.ZodObject<{ [P in K]: (typeof ARGUMENTS)[P] }> {
  return z.object(Object.fromEntries(names.map((name) => [name, ARGUMENTS[name]])) as { [P in K]: (typeof ARGUMENTS)[P] });
}

/** The facts of argument `name`; undefined for a name no action takes. */
export function factsOf(name: string): ArgumentFacts | undefined {
  return Object.hasOwn(ARGUMENTS, name) ? FACTS.get(ARGUMENTS[name as ArgumentName]) : undefined;
}

/** The bound of a string argument `name`; a name no action takes, or one with no bound, may carry any text. */
export function boundOf(name: string): Bound {
  return factsOf(name)?.bound ?? 'text';
}
