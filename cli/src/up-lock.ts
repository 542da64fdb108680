/** What `.relay/up.lock` holds while `relay up` runs: its pid, its URLs once known, the processes it started. */
export type UpLock = {
  pid: number;
  startedAt: string;
  gatewayUrl?: string;
  mcpUrl?: string;
  /** Processes of ours that outlive a killed `relay up` (they run in their own process groups). */
  children: { name: string; pid: number }[];
};

export type LockDecision = { action: 'acquire' } | { action: 'report-running'; lock: UpLock } | { action: 'take-over'; stale: UpLock | undefined };

/** Reads a lock file's text; undefined when it is not a lock this CLI wrote (e.g. a torn write). */
export function parseUpLock(text: string): UpLock | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (!Number.isInteger(record['pid']) || (record['pid'] as number) <= 0) return undefined;
  const children = Array.isArray(record['children'])
    ? record['children'].filter(
        (child): child is { name: string; pid: number } =>
          typeof child === 'object' && child !== null && typeof child.name === 'string' && Number.isInteger(child.pid) && child.pid > 0,
      )
    : [];
  return {
    pid: record['pid'] as number,
    startedAt: typeof record['startedAt'] === 'string' ? record['startedAt'] : '',
    ...(typeof record['gatewayUrl'] === 'string' ? { gatewayUrl: record['gatewayUrl'] } : {}),
    ...(typeof record['mcpUrl'] === 'string' ? { mcpUrl: record['mcpUrl'] } : {}),
    children: children.map(({ name, pid }) => ({ name, pid })),
  };
}

/**
 * Whether `relay up` may start: no lock → acquire; a lock whose process still runs → report it;
 * a lock whose process is gone, or an unreadable one → take it over.
 */
export function decideUpLock(existingText: string | undefined, isRelayUpRunning: (pid: number) => boolean): LockDecision {
  if (existingText === undefined) return { action: 'acquire' };
  const lock = parseUpLock(existingText);
  if (lock !== undefined && isRelayUpRunning(lock.pid)) return { action: 'report-running', lock };
  return { action: 'take-over', stale: lock };
}

/** The one line a second `relay up` prints. */
export function runningMessage(lock: UpLock): string {
  return lock.gatewayUrl === undefined ? `relay is already starting (pid ${lock.pid})` : `relay is already running: ${lock.gatewayUrl} (pid ${lock.pid})`;
}
