import { nothingOf, type ActionTraits } from './action-traits.ts';
import { toolError } from './errors.ts';
import type { ArgumentName, ToolArguments } from './tool-arguments.ts';

/**
 * Throws REMOTE_RELAY_INVALID_INPUT unless every one of `names` was given (and not empty); an action that
 * refuses arguments it does not take ends the refusal with its "Nothing was …" sentence too.
 */
export function requireArguments<K extends ArgumentName>(
  action: Pick<ActionTraits, 'name' | 'nothing' | 'refusesOthers'>,
  args: ToolArguments,
  names: readonly K[],
): asserts args is ToolArguments & { [P in K]-?: NonNullable<ToolArguments[P]> } {
  const missing = names.filter((name) => args[name] === undefined);
  if (missing.length === 0) return;
  const ending = action.refusesOthers ? ` ${nothingOf(action)}` : '';
  throw toolError('REMOTE_RELAY_INVALID_INPUT', `${action.name} needs ${listWords(names)}; missing: ${missing.join(', ')}.${ending}`);
}

function listWords(names: readonly string[]): string {
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}
