/**
 * The gateway's HTTP app, built without listening: `/mcp` for agents, `/api/v1` for users, `/relay/v1`
 * for paired relays, and the health endpoints. It holds no data; every fact comes from the owners it is given.
 */
import type { Clock } from '@relay/clock';
import { INTERNAL_CODE } from '@relay/errors';
import type { Logger } from '@relay/telemetry';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance } from 'fastify';
import helmet from 'helmet';
import { AllowedHosts } from './allowed-hosts.ts';
import { registerSessionRoutes } from './routes/sessions.ts';
import { registerBudgetRoutes } from './routes/budgets.ts';
import { registerConsoleRoutes } from './console/console-routes.ts';
import { DEFAULT_FAILURE_LIMITS, registerFailureLimits, type FailureLimitSettings } from './failure-limits.ts';
import { DEFAULT_FAIR_CALLS, registerFairCalls, type FairCallSettings } from './fair-calls.ts';
import { registerHealthRoutes } from './routes/health.ts';
import { registerInputGuard } from './input-guard.ts';
import { registerMcpRoutes, sendJsonRpcError } from './mcp-routes.ts';
import { registerOAuthRoutes } from './oauth/oauth-routes.ts';
import { registerOpenApi } from './openapi.ts';
import { registerRelayAsksRoutes } from './routes/relay-asks.ts';
import { registerRelaySubscriptionRoutes } from './routes/relay-subscriptions.ts';
import { registerUserRoutes } from './routes/users.ts';
import { registerAskRoutes } from './routes/asks.ts';
import { registerCardRoutes } from './routes/cards.ts';
import { registerPairingRoutes } from './routes/pairings.ts';
import { registerRelayRoutes } from './routes/relay-routes.ts';
import { registerRelaySettingsRoutes } from './routes/relay-settings.ts';
import { registerNotificationRoutes } from './routes/notifications.ts';
import { registerScheduleRoutes } from './routes/schedules.ts';
import { registerSubscriptionRoutes } from './routes/subscriptions.ts';
import type { Owners } from '../../app/ports.ts';

export interface AppDeps extends Owners {
  relayName: string;
  /** The relay's clock (RELAY_CLOCK): the renewals of an external call's hold run on it; the machine's when left out. */
  clock?: Clock;
  /** How long an external session's call may hold its response (RELAY_EXTERNAL_CALL_SECONDS); 50 s when left out. */
  externalCallSeconds?: number;
  /** The base URL users and clients reach this gateway at, without a trailing slash. */
  publicUrl: string;
  /** The base of openUrl links: RELAY_PUBLIC_URL when it is set, else none (a loopback default opens nothing for anyone else). */
  openUrlBase: string | undefined;
  logger: Logger;
  /** What the edges allow; left out, the defaults (loopback and publicUrl's host, the default failure limits). */
  edges?: Partial<EdgeSettings>;
  /** Tests only (RELAY_OAUTH_INSECURE_CLIENT_IDS): client ID metadata documents over http and on loopback. */
  oauthInsecureClientIds?: boolean;
}

/** How the gateway's edges refuse abuse and share its work (config.ts names the variables). */
export interface EdgeSettings extends FailureLimitSettings, FairCallSettings {
  /** Further hosts /mcp answers under (RELAY_ALLOWED_HOSTS). */
  allowedHosts: string[];
  /** The address the gateway listens on (HOST); allowed as a host unless it is every interface. */
  listenHost?: string;
  /** The proxies whose X-Forwarded-For names the client (RELAY_TRUSTED_PROXIES). */
  trustedProxies?: string;
}

/** The Fastify app with every route registered; call `listen` or `inject` on it. */
export function buildApp(deps: AppDeps): FastifyInstance {
  // Typed as Fastify's base logger so route modules take a plain FastifyInstance.
  const loggerInstance: FastifyBaseLogger = deps.logger;
  const edges = { ...DEFAULT_FAILURE_LIMITS, ...DEFAULT_FAIR_CALLS, allowedHosts: [], ...deps.edges };
  const app = Fastify({
    loggerInstance,
    ...(edges.trustedProxies ? { trustProxy: edges.trustedProxies } : {}),
    // Fastify's own request logging is two info lines per request; one debug line (below) is what an operator wants.
    logController: new LogController({ disableRequestLogging: true }),
  });
  app.addHook('onResponse', async (request, reply) => {
    if (request.url === '/healthz' || request.url === '/readyz') return;
    request.log.debug({ method: request.method, route: request.routeOptions.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
  });

  // A request that fails its route's schemas is answered by the route (openapi.ts, invalidInput), after authentication.
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) request.log.error({ err: error }, 'request failed');
    const message = status === 500 ? 'internal error' : error.message;
    if (request.url.startsWith('/mcp')) {
      // JSON-RPC's codes: -32700 a body that is not JSON, -32600 any other request refused, -32603 only our fault.
      return sendJsonRpcError(reply, status, error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ? -32700 : status === 500 ? -32603 : -32600, message);
    }
    return reply.code(status).send({ code: status === 500 ? INTERNAL_CODE : 'REMOTE_RELAY_INVALID_INPUT', error: message });
  });

  // A JSON API and MCP: no page of ours is ever rendered, framed or given scripts. Helmet's middleware is made once
  // (@fastify/helmet made it again for every request, CSP parsing included) and sets its headers on every answer.
  const securityHeaders = helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  });
  app.addHook('onRequest', (request, reply, done) => {
    // Helmet sets them at once and throws what fails (it calls its `next` with no error since 8.1).
    securityHeaders(request.raw, reply.raw, () => undefined);
    done();
  });
  registerFailureLimits(app, edges);
  registerFairCalls(app, deps.relayName, edges);
  registerInputGuard(app);
  // The routes come once the OpenAPI collector is in place (it sees each route as it is added).
  registerOpenApi(app);
  app.after(() => {
    registerConsoleRoutes(app, deps);
    registerHealthRoutes(app);
    if (deps.oauth) registerOAuthRoutes(app, { ...deps, oauth: deps.oauth, insecureClientIds: deps.oauthInsecureClientIds === true });
    registerMcpRoutes(app, deps, new AllowedHosts({ publicUrl: deps.publicUrl, listenHost: edges.listenHost, configured: edges.allowedHosts }));
    registerSessionRoutes(app, deps);
    registerBudgetRoutes(app, deps);
    registerCardRoutes(app, deps);
    registerAskRoutes(app, deps);
    registerNotificationRoutes(app, deps);
    registerScheduleRoutes(app, deps);
    registerSubscriptionRoutes(app, deps);
    registerPairingRoutes(app, deps);
    registerRelayRoutes(app, deps);
    if (deps.remoteEvents) registerRelaySubscriptionRoutes(app, { ...deps, remoteEvents: deps.remoteEvents });
    registerRelayAsksRoutes(app, deps);
    registerRelaySettingsRoutes(app, deps);
    registerUserRoutes(app, deps);
  });
  return app;
}
