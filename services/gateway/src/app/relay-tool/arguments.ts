/**
 * Turns the raw arguments of a relay_tool call into an action and the arguments it takes, by the
 * spec's rules: an empty value counts as no argument, and an argument the action does not take is
 * listed in `ignored` (create_session and update_session refuse it instead). Every string of the call,
 * taken or not, must keep its bound (input-bounds.ts), checked as soon as the action is known.
 */
import { ACTION_NAMES, actionNamed, isActionName, type ActionName } from './action-list.ts';
import { nothingOf } from '../../domain/action-traits.ts';
import { toolError } from '../../domain/errors.ts';
import { boundFault, findBoundFault, preview } from '../../domain/input-bounds.ts';
import { IGNORED_LIMIT } from '../../domain/limits.ts';
import { boundOf, factsOf, type ToolArguments } from '../../domain/tool-arguments.ts';

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

/** The arguments the call's action takes; throws REMOTE_RELAY_INVALID_INPUT naming what is wrong. */
export function parseArguments({ action, input }: NamedCall): ParsedArguments {
  const definition = actionNamed(action);
  const shape = definition.args.shape;
  const given = Object.entries(input).filter(([name, value]) => name !== 'action' && !isEmpty(value));
  const others = given.filter(([name]) => !Object.hasOwn(shape, name)).map(([name]) => name);

  if (definition.refusesOthers && others.length > 0) {
    throw invalid(
      `${action} does not take: ${others.slice(0, IGNORED_LIMIT).map(shortName).join(', ')}. Its arguments: ${Object.keys(shape).join(', ')}. ${nothingOf(definition)}`,
    );
  }

  const args: Record<string, unknown> = {};
  for (const [name, value] of given) {
    // Own names only: "constructor" or "__proto__" must not find Object.prototype's.
    if (!Object.hasOwn(shape, name)) continue;
    const schema = shape[name]!;
    if (!schema.safeParse(value).success) throw invalid(`${action}: "${name}" must be ${factsOf(name)?.expects}; got ${describe(value)}.`);
    args[name] = value;
  }
  if (definition.relay === 'required' && args.relay === undefined) {
    throw invalid(`${action} needs relay: "this" for the relay you run on, or a paired relay's name as list_relays shows it.`);
  }
  return { args: args as ToolArguments, ignored: others.slice(0, IGNORED_LIMIT) };
}

/** An argument's name as a refusal lists it: as given, or a preview of a long one. */
function shortName(name: string): string {
  return preview(name) === JSON.stringify(name) ? name : preview(name);
}

/** An empty value counts as no argument, because some providers send every field (spec, Actions). */
export function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || value === '' || value === false || (Array.isArray(value) && value.length === 0);
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
