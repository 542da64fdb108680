import { parseArgs } from 'node:util';
import { CliError } from './cli-error.ts';
import { GRPC_SERVICE_NAMES, MAX_REPLICAS, type GrpcServiceName, type Replicas } from './service-plan.ts';
import type { ApiBody, ApiOptions, Schemas } from '@relay/user-api';
import type { BudgetSetting } from './gateway-api.ts';

/** Which sessions GET /api/v1/sessions lists. */
export type SessionScope = NonNullable<NonNullable<ApiOptions<'/api/v1/sessions', 'get'>['query']>['scope']>;

export type RelayMode = 'agent' | 'ask' | 'plan';

/** A hosted session to create: its first prompt and what it runs with (unset: the relay's defaults). */
export type HostedSessionOptions = Exclude<ApiBody<'/api/v1/sessions', 'post'>, { external: true }>;

/** Relay settings to change, named as the user API names them; none: only show them. */
export type RelaySettingsChange = ApiBody<'/api/v1/settings', 'patch'>;

export type Command =
  /** signInLink: print the console's one-time sign-in link even when stdout is no terminal, or with --json. */
  /** replicas: how many processes of each service, where more than one (`--replicas session=2,subscription=2`). */
  | { kind: 'up'; json: boolean; signInLink: boolean; replicas?: Replicas }
  | { kind: 'sessions'; scope: SessionScope; page?: number; all: boolean; json: boolean }
  | { kind: 'create-session'; title?: string; json: boolean }
  | { kind: 'create-hosted-session'; session: HostedSessionOptions; wait: boolean; json: boolean }
  | { kind: 'say'; sessionId: string; text: string; wait: boolean; json: boolean }
  | { kind: 'show-session'; sessionId: string; last?: number; message?: string; json: boolean }
  | { kind: 'set-session'; sessionId: string; mode?: RelayMode; mayCreateSessions?: boolean; json: boolean }
  | { kind: 'stop-session'; sessionId: string; json: boolean }
  | { kind: 'archive-session'; sessionId: string; archived: boolean; json: boolean }
  | { kind: 'rename-session'; sessionId: string; title: string; json: boolean }
  /** `group` "" takes the session out of its group. */
  | { kind: 'group-session'; sessionId: string; group: string; json: boolean }
  | { kind: 'usage'; json: boolean; days?: number; tree?: string }
  /** Without `limits` or `remove`, shows the tree's usage and its budgets. */
  | { kind: 'budget'; sessionId: string; limits?: BudgetSetting; remove: boolean; json: boolean }
  | { kind: 'inbox'; json: boolean }
  | { kind: 'answer'; id: string; answer: string; choice?: string; dismiss: boolean; json: boolean }
  | { kind: 'decide'; id: string; decision: 'allow' | 'deny'; json: boolean }
  | { kind: 'schedules'; sessionId?: string; cancel?: string; json: boolean }
  | { kind: 'subscriptions'; sessionId: string; unsubscribe?: string; json: boolean }
  | { kind: 'settings'; change: RelaySettingsChange; json: boolean }
  | { kind: 'pairing-code'; json: boolean }
  | { kind: 'pair'; url: string; code: string; json: boolean }
  | { kind: 'pairs'; level?: { name: string; level: AgentLevel }; acceptPrompts?: boolean; json: boolean }
  | { kind: 'unpair'; name: string; json: boolean }
  | { kind: 'users'; json: boolean }
  | { kind: 'add-user'; name: string; admin: boolean; json: boolean }
  | { kind: 'remove-user'; name: string; json: boolean }
  | { kind: 'user-token'; name: string; revoke: boolean; json: boolean }
  | { kind: 'session-token'; sessionId: string; revoke: boolean; json: boolean }
  | { kind: 'whoami'; json: boolean }
  | { kind: 'help' };

/** An "Agents may" level of a paired relay. */
export type AgentLevel = Schemas['Pairing']['level'];
const LEVELS: readonly AgentLevel[] = ['off', 'read', 'read_and_prompt', 'full'];

const SCOPES: readonly SessionScope[] = ['active', 'archived', 'all'];
const MODES: readonly RelayMode[] = ['agent', 'ask', 'plan'];

export const HELP_TEXT = `relay: run a relay on this machine and talk to it

Usage:
  relay up [--json] [--sign-in-link] [--replicas SERVICE=N,…]
                                                 start NATS, PostgreSQL and the six services; Ctrl-C stops them
                                                 (the console's sign-in link shows on a terminal only; --sign-in-link prints it anyway;
                                                 --replicas session=2,subscription=2 runs that many of those services, balanced)
  relay sessions [--scope active|archived|all] [--page N | --all] [--json]
                                                 list your sessions, 100 a page, the most recently active first
                                                 (--page reads another page, --all every one)
  relay session create --text PROMPT [--title T] [--provider P] [--model M] [--cwd DIR] [--mode agent|ask|plan]
                      [--no-wait] [--json]
                                                 start a session on this relay with its first prompt and wait for the reply
  relay session create --external [--title T] [--json]
                                                 create a session for an MCP client you run, and print its token
  relay say SESSION TEXT… [--no-wait] [--json]   write to a session and wait for its reply
  relay session show SESSION [--last N | --message ID] [--json]
                                                 a session's recent messages and what goes on there (each cut at
                                                 8,000 characters), or the whole of one message
  relay session set SESSION [--mode agent|ask|plan] [--may-create-sessions on|off] [--json]
                                                 the conversation's relay mode, and whether its agent may start sessions
  relay session stop SESSION [--json]            stop the turn running in a session
  relay session archive SESSION [--json]         archive a session (its queued turns are dropped, a running one stops)
  relay session unarchive SESSION [--json]       bring an archived session back to your active list
  relay session rename SESSION TITLE… [--json]   give a session a new title
  relay session group SESSION GROUP|--none [--json]
                                                 move a session into a group (an id or a name; a new name makes
                                                 one), or out of its group
  relay usage [--json]                           what each provider's plan has used and has left
  relay usage --days N [--json]                  what each provider used on each of the last N days (UTC; 1–366)
  relay usage --tree SESSION [--json]            what the session's delegation tree spent, by session, provider and
                                                 relay, and the budgets over it
  relay budget SESSION [--cost-usd N] [--tokens N] [--minutes N] [--sessions N] [--remove] [--json]
                                                 a conversation's budget over its tree (US$, tokens, wall-clock minutes,
                                                 sessions it may start): set the limits given (the others are not
                                                 limited), remove it, or without options show it
  relay session token SESSION [--revoke] [--json]
                                                 a new token for a session's MCP client (shown once; the old one stops
                                                 working), or with --revoke none
  relay inbox [--json]                           pending asks and cards across your sessions
  relay answer ID [TEXT…] [--choice C] [--dismiss] [--json]
                                                 answer (or dismiss) an ask (ask_…) or a question card (card_…)
  relay allow CARD [--json]                      allow what an approval card asks
  relay deny CARD [--json]                       deny what an approval card asks
  relay schedules [--session SESSION] [--cancel SCHEDULE] [--json]
                                                 your schedules (the ⏰ list), or Cancel one
  relay subscriptions SESSION [--unsubscribe SUBSCRIPTION] [--json]
                                                 what a conversation watches (the watcher's list), or Unsubscribe one
  relay settings [--agent-sessions on|off] [--max-wait SECONDS] [--max-turn MINUTES] [--task-quiet MINUTES] [--json]
                                                 this relay's settings: agents may start and use sessions here, the
                                                 longest wait per tool call (120–3600 s), max turn duration, and the
                                                 minutes without output after which a task counts as quiet; options change them
  relay pair --code [--json]                     make a one-time code another relay pairs with (shown once)
  relay pair URL CODE [--json]                   pair this relay with the relay at URL, using a code made there
  relay pairs [NAME --level off|read|read_and_prompt|full] [--accept-prompts on|off] [--json]
                                                 the paired relays (agents may, online, version) and whether other
                                                 relays' agents may prompt here; options change a level or the switch
                                                 (changing settings, pairings and users is for the relay's admins)
  relay unpair NAME [--json]                     remove a pairing on this side (what depends on it ends)
  relay users [--json]                           the relay's users and their roles (admins only)
  relay users add NAME [--admin] [--json]        add a user (a member, or an admin with --admin; admins only) and
                                                 print their token, shown once
  relay users remove NAME [--json]               remove a user (admins only): their tokens stop working, their
                                                 sessions are archived
  relay users token NAME [--revoke] [--json]     a new token for a user (yourself, or anyone for an admin; shown once,
                                                 the old one stops working), or with --revoke none
  relay whoami [--json]                          who your token is: id, name and role (admin or member)
  relay help                                     this text

SESSION is a session's id, the start of its id (as relay_tool results print it, e.g. 3f9c2a1e) when only one
session's id starts so, or its exact title. Options and words may come in any order; after -- every word is text.
--json prints one JSON object with named fields.

Exit codes: 0 done, 1 refused or failed (the relay said no, or could not be reached), 2 the command line is wrong.

relay up reads NATS_URL, DATABASE_URL (a server URL; each service gets its own database on it),
RELAY_PORT (7420), RELAY_NAME (the host name), LOG_LEVEL, RELAY_CLOCK and OTEL_*.
The other commands use RELAY_URL and RELAY_TOKEN, or else the relay started here by relay up.
`;

/** The exit code of a command line the CLI cannot read (0: done, 1: refused or failed, 2: usage). */
export const USAGE_EXIT_CODE = 2;

/** `session=2,subscription=2` → { session: 2, subscription: 2 }: 1 to MAX_REPLICAS of any service but the gateway. */
function parseReplicas(value: string): Replicas {
  const replicas: Replicas = {};
  for (const pair of value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')) {
    const match = /^([a-z]+)=(\d+)$/.exec(pair);
    const service = match?.[1] as GrpcServiceName | undefined;
    const count = Number(match?.[2]);
    if (match === null || service === undefined || !GRPC_SERVICE_NAMES.includes(service)) {
      throw new CliError(
        `relay up --replicas: "${pair}" is not SERVICE=N with SERVICE one of ${GRPC_SERVICE_NAMES.join(', ')} (the gateway holds the relay's one port)`,
        USAGE_EXIT_CODE,
      );
    }
    if (!Number.isInteger(count) || count < 1 || count > MAX_REPLICAS)
      throw new CliError(`relay up --replicas: ${service} takes 1 to ${MAX_REPLICAS} replicas, not ${match[2]}`, USAGE_EXIT_CODE);
    replicas[service] = count;
  }
  if (Object.keys(replicas).length === 0)
    throw new CliError('relay up --replicas needs SERVICE=N[,SERVICE=N…], for example session=2,subscription=2', USAGE_EXIT_CODE);
  return replicas;
}

/** Turns the CLI's arguments (without `node` and the script) into a command; throws CliError on misuse. */
export function parseCommand(argv: readonly string[]): Command {
  const { words, rest } = splitArguments(argv);
  const [first, second, ...extra] = words;
  if (first === undefined || first === 'help') return parseHelp(rest);
  if (rest.includes('--help') || rest.includes('-h')) return { kind: 'help' };
  if (first === 'up' && second === undefined) {
    const { values } = parseOptions(rest, { json: { type: 'boolean' }, 'sign-in-link': { type: 'boolean' }, replicas: { type: 'string' } });
    return {
      kind: 'up',
      json: values.json === true,
      signInLink: values['sign-in-link'] === true,
      ...(typeof values.replicas === 'string' ? { replicas: parseReplicas(values.replicas) } : {}),
    };
  }
  if (first === 'sessions' && second === undefined) {
    const { values } = parseOptions(rest, { json: { type: 'boolean' }, scope: { type: 'string' }, page: { type: 'string' }, all: { type: 'boolean' } });
    if (values.page !== undefined && values.all === true) throw new CliError('relay sessions takes --page N or --all, not both', USAGE_EXIT_CODE);
    return {
      kind: 'sessions',
      scope: parseScope(values.scope),
      ...(values.page === undefined ? {} : { page: parseWholeNumber(values.page, '--page') }),
      all: values.all === true,
      json: values.json === true,
    };
  }
  if (first === 'session' && second === 'create' && extra.length === 0) {
    const { values } = parseOptions(rest, {
      json: { type: 'boolean' },
      external: { type: 'boolean' },
      title: { type: 'string' },
      text: { type: 'string' },
      provider: { type: 'string' },
      model: { type: 'string' },
      cwd: { type: 'string' },
      mode: { type: 'string' },
      'no-wait': { type: 'boolean' },
    });
    const json = values.json === true;
    if (values.external === true) {
      const hosted = ['text', 'provider', 'model', 'cwd', 'mode', 'no-wait'].filter((name) => values[name] !== undefined);
      if (hosted.length > 0) {
        throw new CliError(`relay session create --external takes only --title and --json; --${hosted[0]} is for a session this relay runs`);
      }
      const title = typeof values.title === 'string' ? values.title.trim() : undefined;
      if (title === '') throw new CliError('relay session create: --title must not be empty');
      return { kind: 'create-session', ...(title === undefined ? {} : { title }), json };
    }
    const text = typeof values.text === 'string' ? values.text : '';
    if (text.trim() === '') {
      throw new CliError('relay session create needs --text (the first prompt), or --external for a session of an MCP client you run');
    }
    const session: HostedSessionOptions = { text };
    for (const name of ['title', 'provider', 'model', 'cwd'] as const) {
      const value = values[name];
      if (typeof value !== 'string') continue;
      if (value.trim() === '') throw new CliError(`relay session create: --${name} must not be empty`);
      session[name] = value.trim();
    }
    if (values.mode !== undefined) session.mode = parseMode(values.mode);
    return { kind: 'create-hosted-session', session, wait: values['no-wait'] !== true, json };
  }
  if (first === 'say') {
    const { values } = parseOptions(rest, { json: { type: 'boolean' }, 'no-wait': { type: 'boolean' } });
    const text = extra.join(' ');
    if (second === undefined || text.trim() === '') throw new CliError('relay say needs a session id and a text: relay say SESSION TEXT');
    return { kind: 'say', sessionId: second, text, wait: values['no-wait'] !== true, json: values.json === true };
  }
  if (first === 'session' && second === 'show') {
    const { values } = parseOptions(rest, { json: { type: 'boolean' }, last: { type: 'string' }, message: { type: 'string' } });
    const sessionId = onlySession('show', extra);
    const command: Command = { kind: 'show-session', sessionId, json: values.json === true };
    if (values.last !== undefined) command.last = parseLast(values.last);
    if (typeof values.message === 'string') {
      if (values.last !== undefined) throw new CliError('relay session show takes --last N or --message ID, not both', USAGE_EXIT_CODE);
      if (values.message.trim() === '')
        throw new CliError('relay session show: --message needs a message id (read_session and relay session show --json list them)', USAGE_EXIT_CODE);
      command.message = values.message.trim();
    }
    return command;
  }
  if (first === 'session' && second === 'set') {
    const { values } = parseOptions(rest, { json: { type: 'boolean' }, mode: { type: 'string' }, 'may-create-sessions': { type: 'string' } });
    const sessionId = onlySession('set', extra);
    if (values.mode === undefined && values['may-create-sessions'] === undefined) {
      throw new CliError('relay session set needs --mode agent|ask|plan, --may-create-sessions on|off, or both');
    }
    const command: Command = { kind: 'set-session', sessionId, json: values.json === true };
    if (values.mode !== undefined) command.mode = parseMode(values.mode);
    if (values['may-create-sessions'] !== undefined) command.mayCreateSessions = parseSwitch(values['may-create-sessions'], '--may-create-sessions');
    return command;
  }
  if (first === 'session' && (second === 'stop' || second === 'archive' || second === 'unarchive')) {
    const { values } = parseOptions(rest, { json: { type: 'boolean' } });
    const sessionId = onlySession(second, extra);
    const json = values.json === true;
    return second === 'stop' ? { kind: 'stop-session', sessionId, json } : { kind: 'archive-session', sessionId, archived: second === 'archive', json };
  }
  if (first === 'session' && second === 'rename') {
    const { values } = parseOptions(rest, { json: { type: 'boolean' } });
    const [sessionId, ...titleWords] = extra;
    const title = titleWords.join(' ').trim();
    if (sessionId === undefined || title === '')
      throw new CliError('relay session rename needs a session and the new title: relay session rename SESSION TITLE', USAGE_EXIT_CODE);
    return { kind: 'rename-session', sessionId, title, json: values.json === true };
  }
  if (first === 'session' && second === 'group') {
    const { values } = parseOptions(rest, { json: { type: 'boolean' }, none: { type: 'boolean' } });
    const [sessionId, ...groupWords] = extra;
    const group = groupWords.join(' ').trim();
    const none = values.none === true;
    if (sessionId === undefined || none === (group !== '')) {
      throw new CliError(
        'relay session group needs a session and a group (an id or a name; a new name makes the group), or --none: relay session group SESSION GROUP',
        USAGE_EXIT_CODE,
      );
    }
    return { kind: 'group-session', sessionId, group, json: values.json === true };
  }
  if (first === 'usage' && second === undefined) {
    const { values } = parseOptions(rest, { json: { type: 'boolean' }, days: { type: 'string' }, tree: { type: 'string' } });
    if (values.days !== undefined && values.tree !== undefined) throw new CliError('relay usage takes --days or --tree, not both', USAGE_EXIT_CODE);
    return {
      kind: 'usage',
      json: values.json === true,
      ...(values.days === undefined ? {} : { days: parseDays(values.days) }),
      ...(typeof values.tree === 'string' ? { tree: values.tree } : {}),
    };
  }
  if (first === 'budget') {
    const { values } = parseOptions(rest, {
      json: { type: 'boolean' },
      remove: { type: 'boolean' },
      'cost-usd': { type: 'string' },
      tokens: { type: 'string' },
      minutes: { type: 'string' },
      sessions: { type: 'string' },
    });
    if (second === undefined || extra.length > 0)
      throw new CliError('relay budget needs one session: relay budget SESSION [--cost-usd N] [--tokens N] [--minutes N] [--sessions N]', USAGE_EXIT_CODE);
    const limits = {
      ...(values['cost-usd'] === undefined ? {} : { costUsd: parseLimit('--cost-usd', values['cost-usd'], false) }),
      ...(values.tokens === undefined ? {} : { tokens: parseLimit('--tokens', values.tokens, true) }),
      ...(values.minutes === undefined ? {} : { minutes: parseLimit('--minutes', values.minutes, true) }),
      ...(values.sessions === undefined ? {} : { sessions: parseLimit('--sessions', values.sessions, true) }),
    };
    const remove = values.remove === true;
    const setting = Object.keys(limits).length > 0;
    if (remove && setting) throw new CliError('relay budget --remove takes no limits', USAGE_EXIT_CODE);
    return { kind: 'budget', sessionId: second, ...(setting ? { limits } : {}), remove, json: values.json === true };
  }
  if (first === 'inbox' && second === undefined) {
    const { values } = parseOptions(rest, { json: { type: 'boolean' } });
    return { kind: 'inbox', json: values.json === true };
  }
  if (first === 'answer') {
    const { values } = parseOptions(rest, { json: { type: 'boolean' }, choice: { type: 'string' }, dismiss: { type: 'boolean' } });
    if (second === undefined) throw new CliError('relay answer needs an ask or card id; relay inbox lists them');
    const answer = extra.join(' ').trim();
    const choice = typeof values.choice === 'string' ? values.choice.trim() : undefined;
    const dismiss = values.dismiss === true;
    if (dismiss && (answer !== '' || choice !== undefined)) throw new CliError('relay answer --dismiss takes no answer or --choice');
    if (!dismiss && answer === '' && (choice === undefined || choice === '')) {
      throw new CliError('relay answer needs an answer text, --choice C, or --dismiss: relay answer ID TEXT');
    }
    return { kind: 'answer', id: second, answer, ...(choice ? { choice } : {}), dismiss, json: values.json === true };
  }
  if (first === 'schedules' && second === undefined) {
    const { values } = parseOptions(rest, { json: { type: 'boolean' }, session: { type: 'string' }, cancel: { type: 'string' } });
    const command: Command = { kind: 'schedules', json: values.json === true };
    if (typeof values.session === 'string') command.sessionId = values.session;
    if (typeof values.cancel === 'string') command.cancel = values.cancel;
    return command;
  }
  if (first === 'subscriptions') {
    if (second === undefined) throw new CliError('relay subscriptions needs the watching session: relay subscriptions SESSION');
    const { values } = parseOptions(rest, { json: { type: 'boolean' }, unsubscribe: { type: 'string' } });
    const command: Command = { kind: 'subscriptions', sessionId: second, json: values.json === true };
    if (typeof values.unsubscribe === 'string') command.unsubscribe = values.unsubscribe;
    return command;
  }
  if (first === 'settings' && second === undefined) {
    const { values } = parseOptions(rest, {
      json: { type: 'boolean' },
      'agent-sessions': { type: 'string' },
      'max-wait': { type: 'string' },
      'max-turn': { type: 'string' },
      'task-quiet': { type: 'string' },
    });
    const change: RelaySettingsChange = {};
    if (values['agent-sessions'] !== undefined) change.agent_sessions_enabled = parseSwitch(values['agent-sessions'], '--agent-sessions');
    if (values['max-wait'] !== undefined) change.max_wait_seconds = parseWholeNumber(values['max-wait'], '--max-wait');
    if (values['max-turn'] !== undefined) change.max_turn_minutes = parseWholeNumber(values['max-turn'], '--max-turn');
    if (values['task-quiet'] !== undefined) change.task_quiet_minutes = parseWholeNumber(values['task-quiet'], '--task-quiet');
    return { kind: 'settings', change, json: values.json === true };
  }
  if (first === 'pair') {
    const { values } = parseOptions(rest, { json: { type: 'boolean' }, code: { type: 'boolean' } });
    const json = values.json === true;
    if (values.code === true) {
      if (second !== undefined) throw new CliError('relay pair --code takes no URL: it makes a code for another relay to pair with this one');
      return { kind: 'pairing-code', json };
    }
    if (second === undefined || extra.length !== 1)
      throw new CliError("relay pair needs the other relay's URL and a code made there: relay pair URL CODE (or relay pair --code to make one here)");
    return { kind: 'pair', url: second, code: extra[0]!, json };
  }
  if (first === 'pairs' && extra.length === 0) {
    const { values } = parseOptions(rest, { json: { type: 'boolean' }, level: { type: 'string' }, 'accept-prompts': { type: 'string' } });
    const command: Command = { kind: 'pairs', json: values.json === true };
    if ((second === undefined) !== (values.level === undefined)) throw new CliError("relay pairs NAME --level LEVEL sets a paired relay's level; give both");
    if (second !== undefined && typeof values.level === 'string') {
      const level = LEVELS.find((candidate) => candidate === values.level);
      if (level === undefined) throw new CliError(`--level must be one of: ${LEVELS.join(', ')}`);
      command.level = { name: second, level };
    }
    if (values['accept-prompts'] !== undefined) command.acceptPrompts = parseSwitch(values['accept-prompts'], '--accept-prompts');
    return command;
  }
  if (first === 'unpair' && extra.length === 0) {
    const { values } = parseOptions(rest, { json: { type: 'boolean' } });
    if (second === undefined) throw new CliError("relay unpair needs the paired relay's name; relay pairs lists them");
    return { kind: 'unpair', name: second, json: values.json === true };
  }
  if (first === 'users' && second === undefined) {
    const { values } = parseOptions(rest, { json: { type: 'boolean' } });
    return { kind: 'users', json: values.json === true };
  }
  if (first === 'users' && second === 'add') {
    const { values } = parseOptions(rest, { json: { type: 'boolean' }, admin: { type: 'boolean' } });
    const name = extra.join(' ').trim();
    if (name === '') throw new CliError("relay users add needs the new user's name: relay users add NAME [--admin]");
    return { kind: 'add-user', name, admin: values.admin === true, json: values.json === true };
  }
  if (first === 'users' && (second === 'remove' || second === 'token')) {
    const { values } = parseOptions(rest, second === 'token' ? { json: { type: 'boolean' }, revoke: { type: 'boolean' } } : { json: { type: 'boolean' } });
    const name = extra.join(' ').trim();
    const usage = second === 'token' ? 'relay users token NAME [--revoke]' : 'relay users remove NAME';
    if (name === '') throw new CliError(`relay users ${second} needs the user's name or id: ${usage}`);
    return second === 'token'
      ? { kind: 'user-token', name, revoke: values.revoke === true, json: values.json === true }
      : { kind: 'remove-user', name, json: values.json === true };
  }
  if (first === 'session' && second === 'token') {
    const { values } = parseOptions(rest, { json: { type: 'boolean' }, revoke: { type: 'boolean' } });
    return { kind: 'session-token', sessionId: onlySession('token', extra), revoke: values.revoke === true, json: values.json === true };
  }
  if (first === 'whoami' && second === undefined) {
    const { values } = parseOptions(rest, { json: { type: 'boolean' } });
    return { kind: 'whoami', json: values.json === true };
  }
  if (first === 'allow' || first === 'deny') {
    const { values } = parseOptions(rest, { json: { type: 'boolean' } });
    if (second === undefined) throw new CliError(`relay ${first} needs a card id; relay inbox lists them`);
    if (extra.length > 0) throw new CliError(`relay ${first} decides one card at a time: relay ${first} CARD (got ${extra.length + 1} ids)`, USAGE_EXIT_CODE);
    return { kind: 'decide', id: second, decision: first, json: values.json === true };
  }
  throw new CliError(`unknown command "${words.join(' ')}"; run "relay help"`);
}

/** The options that take a value: the word after one (unless given as --name=value) is its value, not text. */
const VALUE_OPTIONS = new Set([
  'scope',
  'title',
  'text',
  'provider',
  'model',
  'cwd',
  'mode',
  'last',
  'days',
  'message',
  'may-create-sessions',
  'choice',
  'session',
  'cancel',
  'unsubscribe',
  'agent-sessions',
  'max-wait',
  'max-turn',
  'task-quiet',
  'level',
  'accept-prompts',
  'replicas',
  'tree',
  'cost-usd',
  'tokens',
  'minutes',
  'sessions',
  'page',
]);

/**
 * Separates the words (command, ids, text) from the options, wherever each stands: `relay answer ID --choice C
 * TEXT` reads as `relay answer ID TEXT --choice C`. After `--` everything is a word, for text that starts with -.
 */
export function splitArguments(argv: readonly string[]): { words: string[]; rest: string[] } {
  const words: string[] = [];
  const rest: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index]!;
    if (arg === '--') {
      words.push(...argv.slice(index + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      words.push(arg);
      continue;
    }
    const name = arg.replace(/^--?/, '');
    if (VALUE_OPTIONS.has(name) && index + 1 < argv.length) {
      // As --name=value, so a value that starts with - stays a value.
      index += 1;
      rest.push(`${arg}=${argv[index]!}`);
      continue;
    }
    rest.push(arg);
  }
  return { words, rest };
}

function parseHelp(rest: readonly string[]): Command {
  if (rest.length > 0 && !rest.every((arg) => arg === '--help' || arg === '-h')) {
    throw new CliError(`unknown option "${rest[0]}"; run "relay help"`);
  }
  return { kind: 'help' };
}

type OptionSpec = Record<string, { type: 'boolean' | 'string' }>;

function parseOptions(args: readonly string[], options: OptionSpec) {
  try {
    return parseArgs({ args: [...args], options, strict: true, allowPositionals: false });
  } catch (error) {
    throw new CliError(`${(error as Error).message}; run "relay help"`, USAGE_EXIT_CODE, { cause: error });
  }
}

function parseScope(value: string | boolean | undefined): SessionScope {
  if (value === undefined) return 'active';
  const scope = SCOPES.find((candidate) => candidate === value);
  if (scope === undefined) throw new CliError(`--scope must be one of ${SCOPES.join(', ')}`);
  return scope;
}

function onlySession(verb: string, words: readonly string[]): string {
  const [sessionId, ...more] = words;
  if (sessionId === undefined) throw new CliError(`relay session ${verb} needs a session id; relay sessions lists them`);
  if (more.length > 0) throw new CliError(`relay session ${verb} takes one session id; got also "${more.join(' ')}"`);
  return sessionId;
}

function parseMode(value: string | boolean): RelayMode {
  const mode = MODES.find((candidate) => candidate === value);
  if (mode === undefined) throw new CliError(`--mode must be one of ${MODES.join(', ')}`);
  return mode;
}

function parseSwitch(value: string | boolean, option: string): boolean {
  if (value === 'on') return true;
  if (value === 'off') return false;
  throw new CliError(`${option} must be on or off`);
}

// The range is the relay's to check; here only that it is a number.
function parseWholeNumber(value: string | boolean, option: string): number {
  const number = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number)) throw new CliError(`${option} must be a whole number`);
  return number;
}

/** `relay usage --days N`: as many UTC days as the gateway answers, 1–366. */
function parseDays(value: string | boolean): number {
  const days = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isInteger(days) || days < 1 || days > 366) throw new CliError('--days must be a whole number from 1 to 366', USAGE_EXIT_CODE);
  return days;
}

/** A budget's limit: US$ (a number) or a whole number, 0 or more. */
function parseLimit(option: string, value: string | boolean, whole: boolean): number {
  const text = typeof value === 'string' ? value.trim() : '';
  const limit = (whole ? /^\d+$/ : /^\d+(\.\d+)?$/).test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(limit)) throw new CliError(`${option} must be ${whole ? 'a whole number' : 'a number of US dollars'}, 0 or more`, USAGE_EXIT_CODE);
  return limit;
}

function parseLast(value: string | boolean): number {
  const last = Number(value);
  if (!Number.isInteger(last) || last < 1 || last > 100) throw new CliError('--last must be a whole number from 1 to 100');
  return last;
}
