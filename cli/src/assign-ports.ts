import { CliError } from './cli-error.ts';

export type PortRequest = {
  name: string;
  preferred: number;
  /** The user asked for exactly this port (e.g. RELAY_PORT): busy is an error, not a reason to move. */
  strict: boolean;
  /** Shown in the error for a strict port, e.g. "RELAY_PORT". */
  source?: string;
};

/**
 * Gives each request its preferred port unless that is busy or already taken by an earlier request,
 * else the next unused spare port (ports the OS handed out). Throws CliError for a busy strict port.
 */
export function assignPorts(requests: readonly PortRequest[], busy: ReadonlySet<number>, spare: readonly number[]): Map<string, number> {
  const assigned = new Map<string, number>();
  const used = new Set<number>();
  const preferred = new Set(requests.map((request) => request.preferred));
  const spares = spare.filter((port) => !busy.has(port) && !preferred.has(port));
  for (const request of requests) {
    if (!busy.has(request.preferred) && !used.has(request.preferred)) {
      assigned.set(request.name, request.preferred);
      used.add(request.preferred);
      continue;
    }
    if (request.strict) {
      throw new CliError(`port ${request.preferred} (${request.source ?? request.name}) is in use; free it or choose another`);
    }
    const next = spares.find((port) => !used.has(port));
    if (next === undefined) throw new Error(`no spare port left for ${request.name}`);
    assigned.set(request.name, next);
    used.add(next);
  }
  return assigned;
}

/** How many spare ports `assignPorts` may need: one per request whose preferred port is busy or repeated. */
export function sparePortsNeeded(requests: readonly PortRequest[], busy: ReadonlySet<number>): number {
  const seen = new Set<number>();
  let needed = 0;
  for (const request of requests) {
    if (busy.has(request.preferred) || seen.has(request.preferred)) needed += 1;
    seen.add(request.preferred);
  }
  return needed;
}
