import type { Clock } from '@relay/clock';
import type { SessionServiceServer } from '@relay/proto/relay/session/v1/session_service';
import { serveUnary } from '@relay/rpc';
import type { Logger } from '@relay/telemetry';
import { authenticate } from '../domain/authenticate.ts';
import { createExternalSession } from '../domain/create-external-session.ts';
import { createUser } from '../domain/create-user.ts';
import { listSessions } from '../domain/list-sessions.ts';
import type { SessionDeps } from '../domain/ports.ts';
import { getRelaySettings } from '../domain/relay-settings.ts';
import { toCallerMessage, toRelaySettingsMessage, toSessionMessage } from '../wire/session-wire.ts';

/** The generated server interface without grpc-js's index signature, which UnaryHandlers would map to never. */
type SessionServiceMethods = { [K in keyof SessionServiceServer as string extends K ? never : K]: SessionServiceServer[K] };

/** relay.session.v1.SessionService: decode the request, run the use case, encode the answer. */
export function sessionGrpc(deps: SessionDeps & { clock: Clock; logger: Logger }): ReturnType<typeof serveUnary> {
  const { store, clock } = deps;
  return serveUnary<SessionServiceMethods>(deps.logger, {
    authenticate: async (request) => ({
      caller: toCallerMessage(await authenticate(deps, request.token)),
    }),
    createUser: async (request) => {
      const { user, token } = await createUser(deps, { name: request.name }, clock.now());
      return { userId: user.id, token };
    },
    listSessions: async (request) => ({
      sessions: (await listSessions(store, { userId: request.userId, scope: request.scope })).map(toSessionMessage),
    }),
    createExternalSession: async (request) => {
      const { session, token } = await createExternalSession(deps, { userId: request.userId, title: request.title }, clock.now());
      return { session: toSessionMessage(session), token };
    },
    getRelaySettings: async () => ({
      settings: toRelaySettingsMessage(await getRelaySettings(store)),
    }),
  });
}
