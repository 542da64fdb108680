import { callUnary, createClient, type GrpcAuth } from '@relay/rpc';
import { SessionServiceClient } from '@relay/proto/relay/session/v1/session_service';
import { readCredentials, writeCredentials, type Credentials } from './credentials-file.ts';
import { GatewayApi, GatewayHttpError } from './gateway-api.ts';
import type { Reporter } from './reporter.ts';

const TERMINAL_TITLE = 'Terminal';

export type EnsureTerminalSessionOptions = {
  credentialsFile: string;
  gatewayUrl: string;
  sessionGrpcAddress: string;
  /** The gateway's credentials: only the gateway may create users, and `relay up` made them. */
  gatewayAuth: GrpcAuth;
  /** The first user's name (the OS account's). */
  userName: string;
  reporter: Reporter;
  /**
   * How long a read may find the gateway unable to check tokens yet (503: its channel to the session service still
   * connecting just after start-up) before `relay up` gives up; default 30 s.
   */
  unavailableForMs?: number;
  /** Stops the retries (Ctrl-C during start-up). */
  signal?: AbortSignal;
};

/** Between tries while the gateway answers 503. */
const UNAVAILABLE_RETRY_MS = 250;
const UNAVAILABLE_FOR_MS = 30_000;

/**
 * Runs `call` again while the gateway answers 503 (it cannot check tokens yet: just after start-up its channel to the
 * session service may still be connecting though both answer their health checks), for up to `unavailableForMs`.
 * A 503 comes before the request did anything, so a POST is safe to repeat.
 */
async function whileUnavailable<T>(options: EnsureTerminalSessionOptions, call: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + (options.unavailableForMs ?? UNAVAILABLE_FOR_MS);
  for (;;) {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof GatewayHttpError) || error.status !== 503 || Date.now() >= deadline) throw error;
      options.signal?.throwIfAborted();
      await new Promise((resolve) => setTimeout(resolve, UNAVAILABLE_RETRY_MS));
      options.signal?.throwIfAborted();
    }
  }
}

/**
 * The token of the external session "Terminal" that `relay up` prints, and the first user's own token. On the first start it creates
 * the first user (SessionService.CreateUser, called as the gateway) and the session (through the gateway, as
 * that user); later starts reuse both while the relay still knows them.
 */
export async function ensureTerminalSession(options: EnsureTerminalSessionOptions): Promise<{ token: string; title: string; userToken: string }> {
  let credentials = readCredentials(options.credentialsFile) ?? (await createFirstUser(options));
  let active: boolean;
  try {
    const { userToken, terminal } = credentials;
    active = await whileUnavailable(options, () => isActive(new GatewayApi(options.gatewayUrl, userToken), terminal?.sessionId));
  } catch (error) {
    if (!(error instanceof GatewayHttpError) || error.status !== 401) throw error;
    options.reporter.warn(`the relay does not know the user in ${options.credentialsFile} (a new database?); creating a new first user`);
    credentials = await createFirstUser(options);
    active = false;
  }
  const terminal = credentials.terminal;
  if (terminal !== undefined && active) {
    return { token: terminal.token, title: terminal.title, userToken: credentials.userToken };
  }
  const { userToken } = credentials;
  const created = await whileUnavailable(options, () => new GatewayApi(options.gatewayUrl, userToken).createExternalSession(TERMINAL_TITLE));
  writeCredentials(options.credentialsFile, {
    ...credentials,
    terminal: { sessionId: created.session.id, token: created.token, title: TERMINAL_TITLE },
  });
  return { token: created.token, title: TERMINAL_TITLE, userToken: credentials.userToken };
}

/**
 * Whether the session is one of the user's and not archived, read by its id (the listing is a page of the most recently
 * active); without one, the user's token is checked all the same. A token the relay does not know throws (401).
 */
async function isActive(api: GatewayApi, sessionId: string | undefined): Promise<boolean> {
  if (sessionId === undefined) {
    await api.me();
    return false;
  }
  try {
    return !(await api.readSession(sessionId, 1)).session.archived;
  } catch (error) {
    if (error instanceof GatewayHttpError && error.status === 404) return false;
    throw error;
  }
}

async function createFirstUser(options: EnsureTerminalSessionOptions): Promise<Credentials> {
  const client = createClient(SessionServiceClient, options.sessionGrpcAddress, options.gatewayAuth);
  try {
    const user = await callUnary(client, 'createUser', { name: options.userName }, { deadlineMs: 10_000 });
    const credentials: Credentials = { userId: user.userId, userToken: user.token };
    writeCredentials(options.credentialsFile, credentials);
    options.reporter.info(`Created the first user "${options.userName}"; its API token is in ${options.credentialsFile}`);
    return credentials;
  } finally {
    client.close();
  }
}
