/**
 * /relay/v1, where paired relays call this one: POST /relay/v1/pair (a relay pairs with a one-time code; no
 * token yet) and POST /relay/v1/tool (a relay_tool call from an agent on a paired relay, with its relay token
 * and the prompt's provenance headers), GET /relay/v1/hello (this relay's name and version, for the paired relay's
 * link probe). Every answer carries this relay's version in x-relay-version.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { authenticateRelay, sendRelayAuthRefusal } from '../authenticate-relay.ts';
import { callOwner, sendError, sendInvalid } from '../user-api.ts';
import type { Provenance } from '@relay/proto/relay/session/v1/session';
import { DRY_RUN_HEADER, PROVENANCE_HEADERS, VERSION_HEADER } from '@relay/rpc';
import { chainThrough } from '../../../domain/provenance.ts';
import { serveRelayCall, type RelayCallDeps } from '../../../app/relay-tool/serve-relay-call.ts';
import { RELAY_VERSION } from '../../../domain/version.ts';

export type RelayRouteDeps = RelayCallDeps;

const PairBody = z.object(
  {
    code: z.string({ error: 'code is required' }).min(1, { error: 'code is required' }),
    name: z.string({ error: "name (the pairing relay's) is required" }).min(1, { error: 'name is required' }),
    url: z.string({ error: "url (the pairing relay's) is required" }).min(1, { error: 'url is required' }),
    version: z.string({ error: 'version must be a string' }).default(''),
    token: z.string({ error: 'token (to call the pairing relay with) is required' }).min(1, { error: 'token is required' }),
  },
  { error: 'the body must be a JSON object with code, name, url, version and token' },
);

const ToolBody = z.object(
  { action: z.string({ error: 'action is required' }), arguments: z.record(z.string(), z.unknown()).default({}) },
  { error: 'the body must be a JSON object: {"action": "…", "arguments": {…}}' },
);

/** Registers /relay/v1/pair, /relay/v1/hello and /relay/v1/tool on `app`. */
export function registerRelayRoutes(app: FastifyInstance, deps: RelayRouteDeps): void {
  app.addHook('onSend', async (request, reply) => {
    if (request.url.startsWith('/relay/v1/')) reply.header(VERSION_HEADER, RELAY_VERSION);
  });

  // Pairing codes are short enough to guess at: a client's wrong codes are counted, and past the limit it waits.
  app.post('/relay/v1/pair', async (request, reply) => {
    const tries = request.server.failureLimits.pairingCodes;
    const seconds = await tries.waitSeconds(request);
    if (seconds !== undefined) {
      reply.header('retry-after', String(seconds));
      return sendError(reply, 429, 'REMOTE_RELAY_AUTH', `Too many wrong pairing codes came from your address; try again in ${seconds} s. Nothing was paired.`);
    }
    const body = PairBody.safeParse(request.body ?? {});
    if (!body.success) return sendInvalid(reply, body.error);
    const answer = await callOwner(reply, deps.logger, () =>
      deps.pairing.acceptPairing({ ...body.data, selfName: deps.relayName, selfVersion: RELAY_VERSION }),
    );
    if (answer === undefined) {
      // 401 is the pairing service's "unknown, used or expired code".
      if (reply.statusCode === 401) await tries.failed(request);
      return reply;
    }
    return answer;
  });

  app.get('/relay/v1/hello', async (request, reply) => {
    const auth = await authenticateRelay(request, deps.pairing);
    if (!auth.ok) return sendRelayAuthRefusal(reply, auth);
    return { name: deps.relayName, version: RELAY_VERSION };
  });

  app.post('/relay/v1/tool', async (request, reply) => {
    const auth = await authenticateRelay(request, deps.pairing);
    if (!auth.ok) return sendRelayAuthRefusal(reply, auth);
    const body = ToolBody.safeParse(request.body ?? {});
    if (!body.success) return sendInvalid(reply, body.error);
    const provenance = provenanceOf(request, auth.caller.relayName);
    const dryRun = request.headers[DRY_RUN_HEADER] === '1';
    const gone = new AbortController();
    reply.raw.on('close', () => {
      if (!reply.raw.writableFinished) gone.abort();
    });
    return serveRelayCall({ ...body.data.arguments, action: body.data.action }, { ...auth.caller, provenance, dryRun }, deps, gone.signal);
  });
}

/**
 * The provenance a paired relay's call carries. The origin relay is the caller as paired here, whatever the
 * header says, so a relay cannot speak for another; for the same reason the chain of relays it came through
 * ends with the caller (a relay that predates the chain sends none: then the caller is all of it).
 */
function provenanceOf(request: FastifyRequest, relayName: string): Provenance {
  const header = (name: string) => {
    const value = request.headers[name];
    return typeof value === 'string' ? value : '';
  };
  const decoded = (name: string) => {
    try {
      return decodeURIComponent(header(name));
    } catch {
      return header(name);
    }
  };
  const hops = Number.parseInt(header(PROVENANCE_HEADERS.hops), 10);
  const claimed = header(PROVENANCE_HEADERS.viaRelays)
    .split(',')
    .map(decodedName)
    .filter((name) => name !== '');
  return {
    originRelay: relayName,
    originSessionId: header(PROVENANCE_HEADERS.originSessionId),
    originSessionTitle: decoded(PROVENANCE_HEADERS.originSessionTitle),
    model: decoded(PROVENANCE_HEADERS.model),
    // A call that crossed a boundary has crossed at least one.
    hops: Number.isFinite(hops) && hops >= 1 ? hops : 1,
    viaRelays: chainThrough(claimed, relayName),
  };
}

function decodedName(encoded: string): string {
  try {
    return decodeURIComponent(encoded).trim();
  } catch {
    return encoded.trim();
  }
}
