import { invalidInput } from './errors.ts';

const RELAY_NAME = /^[\w.-]{1,63}$/;

/** A relay's name as RELAY_NAME allows it; REMOTE_RELAY_INVALID_INPUT otherwise. */
export function checkRelayName(name: string, what: string): string {
  const trimmed = name.trim();
  if (!RELAY_NAME.test(trimmed)) throw invalidInput(`${what} "${name}" is not a relay name (letters, digits, ".", "-" or "_").`);
  return trimmed;
}
