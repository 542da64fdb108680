// The console's only way to the relay: the user API (/api/v1, typed by its OpenAPI document through @relay/user-api)
// and the console's sign-in, same origin, with the sign-in cookie the gateway set. Every write echoes the relay_csrf
// cookie in X-Relay-CSRF.
import { createUserApi } from '@relay/user-api';

/** A refusal of the user API: its HTTP status, REMOTE_RELAY_* code and message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type Listener = () => void;
const signedOutListeners = new Set<Listener>();

/** Called when the relay answers 401: the sign-in is gone. */
export function onSignedOut(listener: Listener): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

function csrfToken(): string {
  const match = /(?:^|;\s*)relay_csrf=([^;]*)/.exec(document.cookie);
  return match ? decodeURIComponent(match[1] ?? '') : '';
}

/** Calls `path` with `method` and an optional JSON body; answers the parsed JSON or throws ApiError. */
async function request(method: string, path: string, body?: unknown): Promise<unknown> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-relay-csrf'] = csrfToken();
  let response: Response;
  try {
    response = await fetch(path, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, 'OFFLINE', 'The relay does not answer; it may be restarting.');
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? {} : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    const refusal = (parsed ?? {}) as { code?: string; error?: string };
    if (response.status === 401 && !path.startsWith('/console/')) for (const listener of signedOutListeners) listener();
    throw new ApiError(response.status, refusal.code ?? `HTTP_${response.status}`, refusal.error ?? `The relay answered ${response.status}.`);
  }
  return parsed;
}

/** The user API: `api.get('/api/v1/sessions/{id}', { path: { id } })`, every path, parameter, body and answer the document's. */
export const api = createUserApi(request);

/** The console's own sign-in and sign-out (/console/v1, not the user API). */
export const signIn = (body: { token: string } | { link: string }) => request('POST', '/console/v1/sign-in', body);
export const signOut = () => request('POST', '/console/v1/sign-out', {});

/** A path segment, encoded (for the console's own links). */
export const seg = (value: string) => encodeURIComponent(value);
