import type { Schemas } from '@relay/user-api';
import { CliError } from '../cli-error.ts';
import type { GatewayApi } from '../gateway-api.ts';

const FULL_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CANDIDATES_SHOWN = 10;

/** What a session is known by on the command line. */
type Named = Pick<Schemas['UserSession'], 'id' | 'title' | 'archived'>;

/**
 * The session a SESSION word means: a full id as it is; else, among all the user's sessions (archived ones
 * too), the one whose id starts with it (relay_tool results print the first 8 characters) or whose title is
 * exactly it. None, or more than one, is a CliError (exit 1) that names the candidates.
 */
export async function resolveSession(api: GatewayApi, name: string): Promise<string> {
  if (FULL_ID.test(name)) return name;
  return matchSession(await api.listAllSessions('all'), name);
}

/** `resolveSession` on a list already read: the id of the one session `name` means. */
export function matchSession(named: readonly Named[], name: string): string {
  const exact = named.find((session) => session.id === name);
  if (exact !== undefined) return exact.id;
  const prefix = name.toLowerCase();
  const matches = named.filter((session) => (name.length > 0 && session.id.toLowerCase().startsWith(prefix)) || session.title === name);
  if (matches.length === 1) return matches[0]!.id;
  if (matches.length === 0) {
    throw new CliError(`no session "${name}": no id starts so and no title is exactly it; relay sessions --scope all lists them`);
  }
  const shown = matches.slice(0, CANDIDATES_SHOWN).map((session) => `  ${session.id}  "${session.title}"${session.archived ? ' (archived)' : ''}`);
  const more = matches.length > CANDIDATES_SHOWN ? [`  … and ${matches.length - CANDIDATES_SHOWN} more`] : [];
  throw new CliError([`"${name}" could be ${matches.length} sessions; give more of the id:`, ...shown, ...more].join('\n'));
}
