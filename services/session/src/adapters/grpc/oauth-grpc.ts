import type { Clock } from '@relay/clock';
import type { OAuthServiceServer, OAuthServiceService } from '@relay/proto/relay/session/v1/oauth_service';
import { serveUnary, type Callers } from '@relay/rpc';
import type { Logger } from '@relay/telemetry';
import { getClient, grantAuthorization, redeemAuthorizationCode, refreshGrant, registerClient, type OAuthDeps } from '../../app/oauth/oauth-grants.ts';
import { toSessionMessage } from './wire/session-wire.ts';

type OAuthServiceMethods = { [K in keyof OAuthServiceServer as string extends K ? never : K]: OAuthServiceServer[K] };

const GATEWAY = ['gateway'] as const;

/** Only the gateway's authorization server asks for sign-in grants. */
export const OAUTH_CALLERS = {
  registerClient: GATEWAY,
  getClient: GATEWAY,
  grantAuthorization: GATEWAY,
  redeemAuthorizationCode: GATEWAY,
  refreshGrant: GATEWAY,
} satisfies Callers<typeof OAuthServiceService>;

/** relay.session.v1.OAuthService: decode the request, run the use case, encode the answer. */
export function oauthGrpc(deps: OAuthDeps & { clock: Clock; logger: Logger }): ReturnType<typeof serveUnary> {
  const { clock } = deps;
  return serveUnary<OAuthServiceMethods>(deps.logger, {
    registerClient: async (request) => ({ clientId: await registerClient(deps, request.metadataJson, clock.now()) }),
    getClient: async (request) => ({ metadataJson: await getClient(deps, request.clientId) }),
    grantAuthorization: async (request) => {
      const { code, session } = await grantAuthorization(deps, request, clock.now());
      return { code, session: toSessionMessage(session) };
    },
    redeemAuthorizationCode: async (request) => ({ tokens: await redeemAuthorizationCode(deps, request, clock.now()) }),
    refreshGrant: async (request) => ({ tokens: await refreshGrant(deps, request, clock.now()) }),
  });
}
