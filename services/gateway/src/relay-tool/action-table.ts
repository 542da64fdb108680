/**
 * The spec's actions and their arguments, in one table: what each action takes, whether it needs
 * `relay`, and each argument's type and meaning. Argument checking, `ignored` and the tool's input
 * schema are all derived from it.
 */
import type { Bound } from './input-bounds.ts';

/**
 * Every argument any action takes, with its JSON type, the bound its strings keep (input-bounds.ts; a list's
 * items, an object's values) and the sentence the tool schema shows.
 */
export const ARGUMENTS = {
  relay: { type: 'string', bound: 'name', description: '"this" (the relay you run on) or a paired relay\'s name or host, as list_relays shows it.' },
  scope: { type: 'string', bound: 'name', description: 'list_sessions: "active" (default), "archived" or "all".' },
  session: { type: 'string', bound: 'id', description: 'A session id, as list_sessions shows it.' },
  last: { type: 'integer', description: 'read_session: how many recent messages (default 10, at most 100).' },
  task_id: { type: 'string', bound: 'id', description: 'read_task_output: the task id, as read_session shows it.' },
  lines: { type: 'integer', description: 'read_task_output: how many lines of the end (default 50, at most 1000).' },
  text: { type: 'string', bound: 'text', description: 'The prompt to send, or the text a schedule queues.' },
  wait_seconds: { type: 'integer', description: 'How long to wait for the reply; capped by the relay\'s longest wait (list_relays limits).' },
  provider: { type: 'string', bound: 'name', description: 'A provider id from relay_info.' },
  model: { type: 'string', bound: 'name', description: 'A model id from relay_info for that provider.' },
  mode: { type: 'string', bound: 'name', description: 'The relay mode: "agent", "ask" or "plan".' },
  effort: { type: 'string', bound: 'name', description: 'A reasoning effort the model offers (relay_info).' },
  cwd: { type: 'string', bound: 'path', description: 'The working folder of the session.' },
  repo: { type: 'string', bound: 'path', description: 'A repository, for a cloud session.' },
  branch: { type: 'string', bound: 'path', description: 'A branch, for a cloud session.' },
  title: { type: 'string', bound: 'name', description: 'A title for the session or schedule.' },
  group: { type: 'string', bound: 'name', description: 'A session group id or name, as relay_info lists them.' },
  auto_compact_window: { type: 'string_or_integer', bound: 'name', description: 'update_session: the context window for auto-compaction ("auto" or tokens).' },
  thinking_enabled: { type: 'boolean', description: 'update_session: whether the model thinks.' },
  thinking_display: { type: 'string', bound: 'name', description: 'update_session: how thinking is shown.' },
  message_id: { type: 'string', bound: 'id', description: 'wait: the message_id send or create_session returned; an external session waiting on its own conversation leaves it out.' },
  question_id: { type: 'string', bound: 'id', description: 'The id of a question card or ask.' },
  choices: { type: 'strings', bound: 'name', description: 'answer_question: the options picked.' },
  answer: { type: 'string', bound: 'text', description: 'answer_question: a free-text answer.' },
  sessions: { type: 'strings', bound: 'id', description: 'subscribe: the session ids to watch, or ["all"].' },
  events: { type: 'strings', bound: 'name', description: 'subscribe: the events to be woken for (default: question_asked, error, turn_end, subagent_finished, task_failed, stalled, all_idle).' },
  exclude: { type: 'strings', bound: 'id', description: 'subscribe: sessions to leave out of sessions ["all"].' },
  once: { type: 'boolean', description: 'subscribe: end the subscription after its first wake-up.' },
  match: { type: 'string', bound: 'name', description: 'subscribe: a text an event must contain.' },
  stalled_minutes: { type: 'integer', description: 'subscribe: minutes without output before a running task counts as stalled.' },
  heartbeat_minutes: { type: 'integer', description: 'subscribe: a summary wake-up every N minutes while watched sessions work.' },
  digest_minutes: { type: 'integer', description: 'subscribe: gather events into one message every N minutes.' },
  quiet_hours: { type: 'object', bound: 'name', description: 'subscribe: { "from": "HH:MM", "to": "HH:MM", "tz": "Europe/Berlin" }; events inside wait until it ends.' },
  subscription_id: { type: 'string', bound: 'id', description: 'unsubscribe: a subscription id, or "all".' },
  watcher: { type: 'string', bound: 'id', description: 'list_subscriptions: another conversation\'s session id.' },
  from: { type: 'string', bound: 'id', description: 'transfer_subscriptions: the session id of the conversation to take them from.' },
  at: { type: 'string', bound: 'name', description: 'schedule: the first time, ISO 8601.' },
  every_minutes: { type: 'integer', description: 'schedule: repeat every N minutes.' },
  schedule_id: { type: 'string', bound: 'id', description: 'unschedule: the schedule id.' },
  question: { type: 'string', bound: 'text', description: 'ask: the question for the user.' },
  options: { type: 'strings', bound: 'name', description: 'ask: the answers offered.' },
  recommendation: { type: 'string', bound: 'name', description: 'ask: the option you recommend.' },
  detail: { type: 'string', bound: 'text', description: 'ask: what the user needs to know to answer.' },
} as const satisfies Record<string, { type: ArgumentType; bound?: Bound; description: string }>;

export type ArgumentType = 'string' | 'integer' | 'boolean' | 'strings' | 'object' | 'string_or_integer';
export type ArgumentName = keyof typeof ARGUMENTS;

export interface ActionSpec {
  /** What the action takes besides `action`, in the order the spec names them. */
  arguments: readonly ArgumentName[];
  /** required: it works on one named relay; optional: left out, it means "this"; none: it takes no relay. */
  relay: 'required' | 'optional' | 'none';
  /** Set for the actions that refuse an argument they do not take, with the sentence that ends the refusal. */
  refusesOthers?: string;
}

/** The spec's actions in the order it presents them. */
export const ACTION_TABLE = {
  list_relays: { arguments: [], relay: 'none' },
  relay_info: { arguments: ['relay'], relay: 'required' },
  usage: { arguments: ['relay'], relay: 'required' },
  list_sessions: { arguments: ['relay', 'scope'], relay: 'required' },
  read_session: { arguments: ['relay', 'session', 'last'], relay: 'required' },
  read_task_output: { arguments: ['relay', 'session', 'task_id', 'lines'], relay: 'required' },
  send: { arguments: ['relay', 'session', 'text', 'provider', 'model', 'mode', 'effort', 'wait_seconds'], relay: 'required' },
  create_session: {
    arguments: ['relay', 'text', 'provider', 'model', 'cwd', 'repo', 'branch', 'mode', 'effort', 'title', 'group', 'wait_seconds'],
    relay: 'required',
    refusesOthers: 'Nothing was created.',
  },
  update_session: {
    arguments: ['relay', 'session', 'model', 'effort', 'mode', 'auto_compact_window', 'title', 'group', 'thinking_enabled', 'thinking_display', 'cwd'],
    relay: 'required',
    refusesOthers: 'Nothing was changed.',
  },
  wait: { arguments: ['relay', 'session', 'message_id', 'wait_seconds'], relay: 'required' },
  answer_question: { arguments: ['relay', 'session', 'question_id', 'choices', 'answer'], relay: 'required' },
  stop: { arguments: ['relay', 'session'], relay: 'required' },
  archive: { arguments: ['relay', 'session'], relay: 'required' },
  subscribe: {
    arguments: ['relay', 'sessions', 'events', 'exclude', 'once', 'match', 'stalled_minutes', 'heartbeat_minutes', 'digest_minutes', 'quiet_hours'],
    relay: 'optional',
  },
  unsubscribe: { arguments: ['relay', 'subscription_id'], relay: 'optional' },
  list_subscriptions: { arguments: ['relay', 'watcher'], relay: 'optional' },
  transfer_subscriptions: { arguments: ['relay', 'from'], relay: 'optional' },
  schedule: { arguments: ['relay', 'session', 'title', 'text', 'at', 'every_minutes'], relay: 'optional' },
  list_schedules: { arguments: ['relay'], relay: 'optional' },
  unschedule: { arguments: ['relay', 'schedule_id'], relay: 'optional' },
  ask: { arguments: ['relay', 'session', 'question', 'options', 'recommendation', 'detail'], relay: 'optional' },
  list_questions: { arguments: ['relay', 'session'], relay: 'optional' },
  withdraw: { arguments: ['relay', 'question_id'], relay: 'optional' },
} as const satisfies Record<string, ActionSpec>;

export type ActionName = keyof typeof ACTION_TABLE;

export const ACTION_NAMES = Object.keys(ACTION_TABLE) as ActionName[];

/** True when `name` is one of the spec's actions. */
export function isActionName(name: string): name is ActionName {
  return Object.hasOwn(ACTION_TABLE, name);
}
