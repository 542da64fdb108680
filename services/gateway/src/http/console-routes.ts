/**
 * The web console on the gateway: its page and files at `/` (console-static.ts), sign-in and sign-out with a
 * user's own token kept in an HttpOnly cookie (console-cookies.ts), the cookie standing for a bearer token on
 * the user API, and the live-updates stream GET /api/v1/events (console-events.ts). The console itself talks
 * only to /api/v1 and that stream.
 */
import type { FastifyInstance } from 'fastify';
import { INTERNAL_CODE } from '@relay/errors';
import { z } from 'zod';
import { checkToken, tooManyFailures } from './authenticate-bearer.ts';
import { clearSignInCookies, registerCookieAuthentication, sameOrigin, setSignInCookies } from './console-cookies.ts';
import { registerConsoleEvents, type ConsoleEventsDeps, type ConsoleEventsOptions } from './console-events.ts';
import { findConsoleDist, registerConsoleStatic } from './console-static.ts';
import { sendError } from './user-api.ts';

export interface ConsoleOptions extends ConsoleEventsOptions {
  /** The built console (console/dist); found above this file when left out, absent when there is none. */
  distDir?: string;
}

const SignInBody = z.object(
  { token: z.string({ error: 'token (your user token, rly_u_…) is required' }).trim().min(1, { error: 'token must not be empty' }) },
  { error: 'the body must be a JSON object, for example {"token": "rly_u_…"}' },
);

/** Registers the console's page, sign-in, sign-out, cookie authentication and live updates on `app`. */
export function registerConsoleRoutes(app: FastifyInstance, deps: ConsoleEventsDeps, options: ConsoleOptions = {}): void {
  registerCookieAuthentication(app);
  registerConsoleStatic(app, 'distDir' in options ? options.distDir : findConsoleDist());
  registerConsoleEvents(app, deps, options);

  // Sign in: the token is checked like a bearer token (and counted against the client when unknown); a session's
  // token is refused, as the user API refuses it.
  app.post('/console/v1/sign-in', async (request, reply) => {
    const origin = request.headers.origin;
    if (origin !== undefined && !sameOrigin(origin, request)) {
      return sendError(reply, 403, 'REMOTE_RELAY_FORBIDDEN', "Sign in from this relay's own console page; this request came from another site.");
    }
    const body = SignInBody.safeParse(request.body);
    if (!body.success) return sendError(reply, 400, 'REMOTE_RELAY_INVALID_INPUT', body.error.issues.map((issue) => issue.message).join('; '));
    const token = body.data.token;
    let checked;
    try {
      checked = await checkToken(request, token, (value) => deps.sessions.authenticate(value));
    } catch (error) {
      deps.logger.error({ err: error }, 'console sign-in could not check the token');
      return sendError(reply, 503, INTERNAL_CODE, 'This relay cannot check tokens right now; try again in a moment.');
    }
    if (checked.kind === 'wait') {
      const refusal = tooManyFailures(checked.seconds);
      reply.header('retry-after', String(checked.seconds));
      return sendError(reply, 429, 'UNAUTHENTICATED', refusal.message);
    }
    if (checked.kind === 'unknown') return sendError(reply, 401, 'UNAUTHENTICATED', 'That token is unknown or revoked; copy your user token again (userToken in .relay/credentials.json where relay up runs).');
    if (checked.value.sessionId !== undefined) {
      return sendError(reply, 403, 'REMOTE_RELAY_FORBIDDEN', "This is a session's token; sign in with your own user token.");
    }
    setSignInCookies(request, reply, token);
    reply.header('cache-control', 'no-store');
    return { user: { id: checked.value.userId, role: checked.value.role } };
  });

  // Sign out forgets the cookies; the token itself stays valid (revoke it with `relay users token NAME --revoke`).
  app.post('/console/v1/sign-out', async (request, reply) => {
    const origin = request.headers.origin;
    if (origin !== undefined && !sameOrigin(origin, request)) {
      return sendError(reply, 403, 'REMOTE_RELAY_FORBIDDEN', "Sign out from this relay's own console page; this request came from another site.");
    }
    clearSignInCookies(reply);
    return { signedOut: true };
  });
}
