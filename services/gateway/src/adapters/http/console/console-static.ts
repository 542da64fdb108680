/**
 * The web console's files: console/dist (built at install by `npm run build --workspace @relay/console`) served
 * at `/`, its assets under /assets/, and the page itself for every console address (/sessions/:id, which
 * relay_tool's openUrl names, /inbox …). Without a build, those addresses answer a short page saying how to make one.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** The console's page where a person lets an MCP client sign in (oauth/oauth-routes.ts sends them there). */
export const CONSENT_PAGE = '/oauth/consent';

/** The console's own addresses; each answers the page, which routes in the browser. */
export const CONSOLE_PAGES = [
  '/',
  '/sign-in',
  '/sessions',
  '/sessions/:id',
  '/inbox',
  '/cards/:id',
  '/schedules',
  '/relays',
  '/settings',
  '/usage',
  '/notifications',
  CONSENT_PAGE,
];

// The page loads only its own files and talks only to this relay; nothing frames it.
const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2',
};

/** An asset's file name as Vite writes them: no folders, no dot files. */
const ASSET_NAME = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;

/** The checkout's console/dist: the first folder above this file that holds console/package.json. */
export function findConsoleDist(from = dirname(fileURLToPath(import.meta.url))): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'console', 'package.json'))) return join(dir, 'console', 'dist');
    if (dirname(dir) === dir) return undefined;
  }
}

/** Registers the console's page addresses and /assets/* on `app`, serving from `distDir`. */
export function registerConsoleStatic(app: FastifyInstance, distDir: string | undefined): void {
  for (const page of CONSOLE_PAGES) {
    app.get(page, async (_request, reply) => sendPage(reply, distDir));
  }
  // The service worker that shows Web Push notifications (docs/adr/0031): at the root, so its scope is the console's.
  app.get('/sw.js', async (_request, reply) => {
    const body = distDir === undefined ? undefined : await readFile(join(distDir, 'sw.js')).catch(() => undefined);
    if (body === undefined) return notFound(reply);
    return reply.header('content-security-policy', CONSOLE_CSP).header('cache-control', 'no-cache').type(TYPES['.js']!).send(body);
  });
  app.get('/assets/:name', async (request, reply) => {
    const { name } = request.params as { name: string };
    const type = TYPES[extname(name)];
    if (distDir === undefined || !ASSET_NAME.test(name) || type === undefined) return notFound(reply);
    const body = await readFile(join(distDir, 'assets', name)).catch(() => undefined);
    if (body === undefined) return notFound(reply);
    // Vite names each asset by its content's hash: a name never changes its bytes.
    return reply.header('content-security-policy', CONSOLE_CSP).header('cache-control', 'public, max-age=31536000, immutable').type(type).send(body);
  });
}

async function sendPage(reply: FastifyReply, distDir: string | undefined): Promise<FastifyReply> {
  const html = distDir === undefined ? undefined : await readFile(join(distDir, 'index.html'), 'utf8').catch(() => undefined);
  reply.header('content-security-policy', CONSOLE_CSP).header('cache-control', 'no-cache').type('text/html; charset=utf-8');
  if (html === undefined) return reply.code(503).send(NOT_BUILT_PAGE);
  return reply.send(html);
}

function notFound(reply: FastifyReply): FastifyReply {
  return reply.code(404).send({ code: 'REMOTE_RELAY_NOT_FOUND', error: 'No such console file.' });
}

/** What `/` answers when console/dist is missing. */
export const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Relay console not built</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><main><h1>The web console is not built</h1>
<p>This relay is running, but its web console has not been built in this checkout.
Build it with <code>npm run build --workspace @relay/console</code> (or <code>npm ci</code>, which builds it),
then reload this page. The user API at <code>/api/v1</code> and MCP at <code>/mcp</code> work without it.</p>
</main></body></html>
`;
