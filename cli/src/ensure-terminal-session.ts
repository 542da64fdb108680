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
};

/**
 * The token of the external session "Terminal" that `relay up` prints, and the first user's own token. On the first start it creates
 * the first user (SessionService.CreateUser, called as the gateway) and the session (through the gateway, as
 * that user); later starts reuse both while the relay still knows them.
 */
export async function ensureTerminalSession(options: EnsureTerminalSessionOptions): Promise<{ token: string; title: string; userToken: string }> {
  let credentials = readCredentials(options.credentialsFile) ?? (await createFirstUser(options));
  let sessions: unknown[];
  try {
    sessions = await new GatewayApi(options.gatewayUrl, credentials.userToken).listSessions('active');
  } catch (error) {
    if (!(error instanceof GatewayHttpError) || error.status !== 401) throw error;
    options.reporter.warn(`the relay does not know the user in ${options.credentialsFile} (a new database?); creating a new first user`);
    credentials = await createFirstUser(options);
    sessions = [];
  }
  const terminal = credentials.terminal;
  if (terminal !== undefined && sessions.some((session) => (session as { id?: unknown }).id === terminal.sessionId)) {
    return { token: terminal.token, title: terminal.title, userToken: credentials.userToken };
  }
  const created = await new GatewayApi(options.gatewayUrl, credentials.userToken).createExternalSession(TERMINAL_TITLE);
  writeCredentials(options.credentialsFile, {
    ...credentials,
    terminal: { sessionId: created.session.id, token: created.token, title: TERMINAL_TITLE },
  });
  return { token: created.token, title: TERMINAL_TITLE, userToken: credentials.userToken };
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
