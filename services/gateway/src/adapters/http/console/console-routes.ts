/**
 * The web console on the gateway: its page and files at `/` (console-static.ts), sign-in and sign-out with a
 * user's own token kept in an HttpOnly cookie (console-cookies.ts), the cookie standing for a bearer token on
 * the user API, one-time sign-in links (POST /api/v1/sign-in-links; `relay up` prints one), and the live-updates
 * stream GET /api/v1/events (console-events.ts). The console itself talks
 * only to /api/v1 and that stream.
 */
import type { FastifyInstance } from 'fastify';
import { INTERNAL_CODE } from '@relay/errors';
import { z } from 'zod';
import { checkToken, tooManyFailures } from '../authenticate-bearer.ts';
import { clearSignInCookies, cookiesOf, registerCookieAuthentication, sameOrigin, SESSION_COOKIE, setSignInCookies } from './console-cookies.ts';
import { registerConsoleEvents, type ConsoleEventsDeps, type ConsoleEventsOptions } from './console-events.ts';
import { findConsoleDist, registerConsoleStatic } from './console-static.ts';
import { callOwner, sendError, userOf } from '../user-api.ts';
import { answers, typed } from '../openapi.ts';
import { callerOf, userRoleOf } from '../../../domain/caller.ts';
import { answered } from '../../../domain/answers.ts';

export interface ConsoleDeps extends ConsoleEventsDeps {
  /** The base URL users reach this gateway at, without a trailing slash: where a sign-in link points. */
  publicUrl: string;
}

export interface ConsoleOptions extends ConsoleEventsOptions {
  /** The built console (console/dist); found above this file when left out, absent when there is none. */
  distDir?: string;
}

const BODY_EXAMPLE = 'the body must be a JSON object, for example {"token": "rly_u_…"} or {"link": "rly_l_…"}';
const SignInBody = z.union(
  [
    z.object(
      { token: z.string({ error: 'token (your user token, rly_u_…) must be a string' }).trim().min(1, { error: 'token must not be empty' }) },
      { error: BODY_EXAMPLE },
    ),
    z.object(
      { link: z.string({ error: 'link (from a sign-in link, rly_l_…) must be a string' }).trim().min(1, { error: 'link must not be empty' }) },
      { error: BODY_EXAMPLE },
    ),
  ],
  { error: `give token or link: ${BODY_EXAMPLE}` },
);

/** Registers the console's page, sign-in, sign-out, cookie authentication and live updates on `app`. */
export function registerConsoleRoutes(app: FastifyInstance, deps: ConsoleDeps, options: ConsoleOptions = {}): void {
  registerCookieAuthentication(app);
  registerConsoleStatic(app, 'distDir' in options ? options.distDir : findConsoleDist());
  registerConsoleEvents(app, deps, options);

  // A one-time sign-in link for the caller (relay up prints one). The secret rides in the address's fragment,
  // which the browser never sends to a server, so it stays out of logs and Referer headers, and a link preview
  // cannot spend it: only the page's own sign-in posts it.
  const SignInLink = z
    .strictObject({ url: z.string().describe('The link; its secret rides in the fragment.'), expiresAt: z.string() })
    .meta({ id: 'SignInLink' });
  typed(app).post('/api/v1/sign-in-links', { schema: { response: answers(SignInLink) } }, async (request, reply) => {
    const userId = await userOf(deps, request, reply);
    if (userId === undefined) return reply;
    const created = await callOwner(reply, deps.logger, () => deps.sessions.createSignInLink({ userId }));
    if (created === undefined) return reply;
    reply.header('cache-control', 'no-store');
    return { url: `${deps.publicUrl}/#link=${created.link}`, expiresAt: answered(created.expiresAt, 'CreateSignInLink', 'expires_at').toISOString() };
  });

  // Sign in with a token or a link: either is checked like a bearer token (and counted against the client when
  // unknown); a session's token is refused, as the user API refuses it. A link signs in once, with a user token of
  // its own that lasts as long as the cookie.
  app.post('/console/v1/sign-in', async (request, reply) => {
    const origin = request.headers.origin;
    if (origin !== undefined && !sameOrigin(origin, request)) {
      return sendError(reply, 403, 'REMOTE_RELAY_FORBIDDEN', "Sign in from this relay's own console page; this request came from another site.");
    }
    const body = SignInBody.safeParse(request.body);
    if (!body.success) return sendError(reply, 400, 'REMOTE_RELAY_INVALID_INPUT', body.error.issues.map((issue) => issue.message).join('; '));
    const given = body.data;
    let checked;
    try {
      checked =
        'token' in given
          ? await checkToken(request, given.token, async (token) => ({ token, caller: callerOf(await deps.sessions.authenticate({ token })) }))
          : await checkToken(request, given.link, async (link) => {
              const redeemed = await deps.sessions.redeemSignInLink({ link });
              return { token: redeemed.token, caller: { userId: redeemed.userId, role: userRoleOf(redeemed.role), sessionId: undefined } };
            });
    } catch (error) {
      deps.logger.error({ err: error }, 'console sign-in could not check the token');
      return sendError(reply, 503, INTERNAL_CODE, 'This relay cannot check tokens right now; try again in a moment.');
    }
    if (checked.kind === 'wait') {
      const refusal = tooManyFailures(checked.seconds);
      reply.header('retry-after', String(checked.seconds));
      return sendError(reply, 429, 'UNAUTHENTICATED', refusal.message);
    }
    if (checked.kind === 'unknown') {
      return sendError(
        reply,
        401,
        'UNAUTHENTICATED',
        'token' in given
          ? 'That token is unknown or revoked; copy your user token again (userToken in .relay/credentials.json where relay up runs).'
          : 'That sign-in link was used already or has expired; a link signs in once, within 10 minutes. Restart relay up for a new one, or sign in with your user token.',
      );
    }
    const { token, caller } = checked.value;
    if (caller.sessionId !== undefined) {
      return sendError(reply, 403, 'REMOTE_RELAY_FORBIDDEN', "This is a session's token; sign in with your own user token.");
    }
    setSignInCookies(request, reply, token);
    reply.header('cache-control', 'no-store');
    return { user: { id: caller.userId, role: caller.role } };
  });

  // Sign out forgets the cookies and ends the token a sign-in link made; a personal token stays valid (it signs in
  // elsewhere too; revoke it with `relay users token NAME --revoke`).
  app.post('/console/v1/sign-out', async (request, reply) => {
    const origin = request.headers.origin;
    if (origin !== undefined && !sameOrigin(origin, request)) {
      return sendError(reply, 403, 'REMOTE_RELAY_FORBIDDEN', "Sign out from this relay's own console page; this request came from another site.");
    }
    const token = cookiesOf(request).get(SESSION_COOKIE);
    let ended = false;
    if (token !== undefined && token !== '') {
      try {
        ended = (await deps.sessions.endSignIn({ token })).ended;
      } catch (error) {
        // The cookies go anyway; a link's token left behind stops working when it expires.
        deps.logger.warn({ err: error }, "console sign-out could not end the sign-in's token");
      }
    }
    clearSignInCookies(reply);
    return { signedOut: true, tokenEnded: ended };
  });
}
