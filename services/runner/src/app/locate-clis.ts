/**
 * The runner's second use case: where the agents' CLIs the session service asks for lie in this image, executable
 * (RunnerService/LocateClis). The session service asks at its start, so a provider whose CLI this image lacks is
 * listed unavailable, with why, and the session service's own image need not carry the CLIs.
 */
import { appError } from '@relay/errors';
import { locateCli, type CliLocation, type CliProgram } from '@relay/service/cli-programs';

/** The most programs one call may ask for (each an ACP agent or a provider's CLI: a handful). */
const MAX_PROGRAMS = 100;

/**
 * One location per program, in order (undefined: not there, or not executable); packages are found from the folder
 * `from` (the runner's own code); a path that is not absolute is not there. REMOTE_RELAY_INVALID_INPUT for too many.
 */
export function locateClis(programs: readonly CliProgram[], from: string): (CliLocation | undefined)[] {
  if (programs.length > MAX_PROGRAMS)
    throw appError('REMOTE_RELAY_INVALID_INPUT', `at most ${MAX_PROGRAMS} programs in one call`, { details: { field: 'programs' } });
  return programs.map((program) => locateCli(program, from));
}
