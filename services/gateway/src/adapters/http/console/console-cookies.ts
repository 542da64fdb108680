/**
 * The web console's sign-in, kept in two cookies: `relay_session` (HttpOnly, SameSite=Strict) holds the user's
 * own token, and `relay_csrf` (readable by the page, SameSite=Strict) a random value the page echoes in
 * X-Relay-CSRF on every write (double submit). A user API request that carries no Authorization header but the
 * session cookie is authenticated as if the token came as a bearer token; a write also needs the CSRF echo and,
 * when the browser names an Origin, this relay's own.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from '../user-api.ts';

export const SESSION_COOKIE = 'relay_session';
export const CSRF_COOKIE = 'relay_csrf';
export const CSRF_HEADER = 'x-relay-csrf';

/** How long a console sign-in lasts: a week, then the token is asked for again. */
export const SIGN_IN_SECONDS = 7 * 24 * 60 * 60;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The cookies of a request, by name (the first of a repeated name wins). */
export function cookiesOf(request: FastifyRequest): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (cookies.has(name)) continue;
    try {
      cookies.set(name, decodeURIComponent(part.slice(eq + 1).trim()));
    } catch {
      // A value that is not valid percent-encoding is no cookie of ours.
    }
  }
  return cookies;
}

/** Sets both cookies after a sign-in; returns the CSRF value. */
export function setSignInCookies(request: FastifyRequest, reply: FastifyReply, token: string): string {
  const csrf = randomBytes(24).toString('base64url');
  const secure = request.protocol === 'https' ? '; Secure' : '';
  reply.header('set-cookie', [
    `${SESSION_COOKIE}=${encodeURIComponent(token)}; Path=/; Max-Age=${SIGN_IN_SECONDS}; HttpOnly; SameSite=Strict${secure}`,
    `${CSRF_COOKIE}=${csrf}; Path=/; Max-Age=${SIGN_IN_SECONDS}; SameSite=Strict${secure}`,
  ]);
  return csrf;
}

/** Clears both cookies (sign out). */
export function clearSignInCookies(reply: FastifyReply): void {
  reply.header('set-cookie', [`${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict`, `${CSRF_COOKIE}=; Path=/; Max-Age=0; SameSite=Strict`]);
}

/**
 * Why a cookie-authenticated write is refused, or undefined when it may go: its Origin (when the browser sends
 * one) must be this relay's, and its X-Relay-CSRF header must equal the relay_csrf cookie.
 */
export function csrfRefusal(request: FastifyRequest, cookies: Map<string, string>): string | undefined {
  const origin = request.headers.origin;
  if (origin !== undefined && !sameOrigin(origin, request)) {
    return `A console write must come from this relay's own page; Origin ${JSON.stringify(origin.slice(0, 80))} is another site's.`;
  }
  const expected = cookies.get(CSRF_COOKIE) ?? '';
  const header = request.headers[CSRF_HEADER];
  const given = typeof header === 'string' ? header : '';
  if (expected === '' || !equalSecrets(expected, given)) {
    return `A console write needs the ${CSRF_HEADER} header equal to the ${CSRF_COOKIE} cookie; sign in again if the page is old.`;
  }
  return undefined;
}

/** Whether an Origin header names the host this request came to. */
export function sameOrigin(origin: string, request: FastifyRequest): boolean {
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}

function equalSecrets(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * The hook that lets the console's cookie stand for a bearer token on /api/: a request with an Authorization
 * header is left as it is; one with the session cookie gets it as its bearer token, and a write without the
 * CSRF echo (or from another origin) is refused with 403 REMOTE_RELAY_FORBIDDEN before any route runs.
 */
export function registerCookieAuthentication(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    if (!request.url.startsWith('/api/') || request.headers.authorization !== undefined) return;
    const cookies = cookiesOf(request);
    const token = cookies.get(SESSION_COOKIE);
    if (token === undefined || token === '') return;
    if (!SAFE_METHODS.has(request.method)) {
      const refused = csrfRefusal(request, cookies);
      if (refused !== undefined) return sendError(reply, 403, 'REMOTE_RELAY_FORBIDDEN', refused);
    }
    request.headers.authorization = `Bearer ${token}`;
  });
}
