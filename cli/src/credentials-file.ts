import { chmodSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

/** `.relay/credentials.json`: the first user's API token and the "Terminal" session's token. Secrets: mode 0600. */
export type Credentials = {
  userId: string;
  userToken: string;
  terminal?: { sessionId: string; token: string; title: string };
};

/** The stored credentials, or undefined when there are none (or they are not ours to read). */
export function readCredentials(path: string): Credentials | undefined {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
  const record = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  if (typeof record['userId'] !== 'string' || typeof record['userToken'] !== 'string') return undefined;
  const terminal = record['terminal'] as Record<string, unknown> | undefined;
  const validTerminal = typeof terminal === 'object' && terminal !== null && typeof terminal['sessionId'] === 'string' && typeof terminal['token'] === 'string';
  return {
    userId: record['userId'],
    userToken: record['userToken'],
    ...(validTerminal
      ? { terminal: { sessionId: terminal['sessionId'] as string, token: terminal['token'] as string, title: String(terminal['title'] ?? 'Terminal') } }
      : {}),
  };
}

/** Replaces the file atomically, readable by its owner only. */
export function writeCredentials(path: string, credentials: Credentials): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
}
