/**
 * Turns the raw arguments of a relay_tool call into an action and the arguments it takes, by the
 * spec's rules: an empty value counts as no argument, and an argument the action does not take is
 * listed in `ignored` (create_session and update_session refuse it instead). Every string of the call,
 * taken or not, must keep its bound (input-bounds.ts), checked as soon as the action is known.
 */
import { ACTION_NAMES, ACTION_TABLE, ARGUMENTS, isActionName, type ActionName, type ActionSpec, type ArgumentName, type ArgumentType } from './action-table.ts';
import { toolError } from './errors.ts';
import { boundFault, findBoundFault, preview, type Bound } from './input-bounds.ts';
import { IGNORED_LIMIT } from './limits.ts';

type ValueOf<T extends ArgumentType> = T extends 'string'
  ? string
  : T extends 'integer'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'strings'
        ? string[]
        : T extends 'object'
          ? Record<string, unknown>
          : string | number;

/** The arguments an action takes, each present only when given and not empty, with its checked type. */
export type ToolArguments = { [K in ArgumentName]?: ValueOf<(typeof ARGUMENTS)[K]['type']> };

export interface ParsedArguments {
  args: ToolArguments;
  /** Given arguments the action does not take, in the order given, at most IGNORED_LIMIT. */
  ignored: string[];
}

export interface NamedCall {
  action: ActionName;
  /** The call's raw arguments, `action` included. */
  input: Record<string, unknown>;
}

/**
 * The action a call names; throws REMOTE_RELAY_INVALID_INPUT for a call that is not an object, names no known
 * action, or has a string that breaks its bound (a NUL, a lone surrogate, too long, an id that is none).
 */
export function parseAction(input: unknown): NamedCall {
  if (!isPlainObject(input)) {
    throw invalid(`relay_tool takes a JSON object of arguments, for example {"action": "list_relays"}; got ${describe(input)}.`);
  }
  const value = input.action;
  const valid = `Valid actions: ${ACTION_NAMES.join(', ')}.`;
  if (isEmpty(value)) throw invalid(`relay_tool needs "action". ${valid}`);
  if (typeof value !== 'string') throw invalid(`"action" must be a string; got ${describe(value)}. ${valid}`);
  const name = value.trim().toLowerCase();
  if (!isActionName(name)) throw invalid(`Unknown action ${preview(value)}. ${valid}`);
  checkBounds(name, input);
  return { action: name, input };
}

// Before any owner is asked: a value no service could store or find must not cost one an RPC.
function checkBounds(action: ActionName, input: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(input)) {
    if (name === 'action') continue;
    const nameFault = boundFault(name, 'name');
    if (nameFault !== undefined) throw invalid(`${action}: an argument's name ${nameFault}.`);
    const bound = boundOf(name);
    const found = findBoundFault(value, name, () => bound);
    if (found !== undefined) throw invalid(`${action}: ${preview(found.field)} ${found.fault}.`);
  }
}

// A name no action takes may still carry any text; it is only listed in ignored.
function boundOf(name: string): Bound {
  if (!Object.hasOwn(ARGUMENTS, name)) return 'text';
  const argument = ARGUMENTS[name as ArgumentName];
  return 'bound' in argument ? argument.bound : 'text';
}

/** The arguments the call's action takes; throws REMOTE_RELAY_INVALID_INPUT naming what is wrong. */
export function parseArguments({ action, input }: NamedCall): ParsedArguments {
  const spec: ActionSpec = ACTION_TABLE[action];
  const taken = new Set<string>(spec.arguments);
  const given = Object.entries(input).filter(([name, value]) => name !== 'action' && !isEmpty(value));
  const others = given.filter(([name]) => !taken.has(name)).map(([name]) => name);

  if (spec.refusesOthers && others.length > 0) {
    throw invalid(`${action} does not take: ${others.slice(0, IGNORED_LIMIT).map(shortName).join(', ')}. Its arguments: ${spec.arguments.join(', ')}. ${spec.refusesOthers}`);
  }

  const args: Record<string, unknown> = {};
  for (const [name, value] of given) {
    if (!taken.has(name)) continue;
    const type = ARGUMENTS[name as ArgumentName].type;
    if (!hasType(value, type)) throw invalid(`${action}: "${name}" must be ${TYPE_WORDS[type]}; got ${describe(value)}.`);
    args[name] = value;
  }
  if (spec.relay === 'required' && args.relay === undefined) {
    throw invalid(`${action} needs relay: "this" for the relay you run on, or a paired relay's name as list_relays shows it.`);
  }
  return { args: args as ToolArguments, ignored: others.slice(0, IGNORED_LIMIT) };
}

/** Throws REMOTE_RELAY_INVALID_INPUT unless every one of `names` was given (and not empty). */
export function requireArguments<K extends ArgumentName>(
  action: ActionName,
  args: ToolArguments,
  names: readonly K[],
): asserts args is ToolArguments & { [P in K]-?: NonNullable<ToolArguments[P]> } {
  const missing = names.filter((name) => args[name] === undefined);
  if (missing.length === 0) return;
  const spec: ActionSpec = ACTION_TABLE[action];
  const ending = spec.refusesOthers ? ` ${spec.refusesOthers}` : '';
  throw invalid(`${action} needs ${listWords(names)}; missing: ${missing.join(', ')}.${ending}`);
}

/** An argument's name as a refusal lists it: as given, or a preview of a long one. */
function shortName(name: string): string {
  return preview(name) === JSON.stringify(name) ? name : preview(name);
}

function listWords(names: readonly string[]): string {
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/** An empty value counts as no argument, because some providers send every field (spec, Actions). */
export function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || value === '' || value === false || (Array.isArray(value) && value.length === 0);
}

const TYPE_WORDS: Record<ArgumentType, string> = {
  string: 'a string',
  integer: 'a whole number',
  boolean: 'true or false',
  strings: 'a list of strings',
  object: 'an object',
  string_or_integer: 'a string or a whole number',
};

function hasType(value: unknown, type: ArgumentType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return Number.isSafeInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'strings':
      return Array.isArray(value) && value.every((item) => typeof item === 'string');
    case 'object':
      return isPlainObject(value);
    case 'string_or_integer':
      return typeof value === 'string' || Number.isSafeInteger(value);
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'number' && !Number.isInteger(value)) return 'a fractional number';
  return { string: 'a string', number: 'a number', boolean: 'a boolean', object: 'an object', undefined: 'nothing' }[typeof value as string] ?? typeof value;
}

function invalid(message: string) {
  return toolError('REMOTE_RELAY_INVALID_INPUT', message);
}
