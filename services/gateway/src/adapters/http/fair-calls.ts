/**
 * Fair shares of this gateway's work (domain/fair-shares.ts) for the calls that work without waiting: relay_tool's
 * reads of this relay over /mcp (every action but the writes, which may wait for a card or a turn, and `wait`), and
 * the user API's requests (but a turn's wait and the console's live updates, which hold their answer open). A route
 * lets its authenticated caller's call in with `app.fairCalls.admit`: the call waits for its user's turn, and one past
 * the user's bound is refused at once, before anything is read or written, with REMOTE_RELAY_CALL_LIMIT (a relay_tool
 * result on /mcp, 429 on the user API, both with Retry-After). The place is given back when the answer is sent or the
 * client goes away. Held in this process's memory: the shares are per gateway replica.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { actionNamed, isActionName } from '../../app/relay-tool/action-list.ts';
import type { Caller } from '../../domain/caller.ts';
import { FairShares, type FairShareBounds } from '../../domain/fair-shares.ts';
import { namesThisRelay } from '../../domain/relay-name.ts';
import type { Refusal } from '../../domain/result.ts';
import type { ToolErrorCode } from '../../domain/errors.ts';
import { toCallToolResult } from './mcp/call-tool-result.ts';
import { LEGACY_TOOL_NAME, TOOL_NAME } from './mcp/relay-tool-definition.ts';

declare module 'fastify' {
  interface FastifyInstance {
    fairCalls: FairCalls;
  }
}

/** The bounds of one user's calls on this gateway (config.ts names the variables). */
export interface FairCallSettings {
  /** Calls of one user at work at once while no other user is present (RELAY_CALLS_PER_USER). */
  callsPerUser: number;
  /** Calls of one user at work at once while another user is present (RELAY_CALLS_PER_USER_SHARED). */
  callsPerUserShared: number;
  /** Calls of one user waiting for their turn; one more is refused (RELAY_CALLS_QUEUED_PER_USER). */
  callsQueuedPerUser: number;
  /** Calls of all users at work at once (RELAY_CALLS_AT_WORK). */
  callsAtWork: number;
}

export const DEFAULT_FAIR_CALLS: FairCallSettings = { callsPerUser: 4, callsPerUserShared: 1, callsQueuedPerUser: 64, callsAtWork: 16 };

/** How long a refused caller is told to wait before it tries again. */
const RETRY_AFTER_SECONDS = 1;

/** The user API's routes that hold their answer open (a turn's wait, the console's live updates): holding is no work. */
const HOLDING_ROUTES = new Set(['/api/v1/sessions/:id/wait', '/api/v1/events']);

export interface FairCalls {
  /**
   * Lets the call of `caller` on `request` in, once its turn comes: true when it may go on; false when it was
   * refused (the refusal is answered on `reply`) or its client went away while it waited. A call this does not bound
   * goes on at once.
   */
  admit(request: FastifyRequest, reply: FastifyReply, caller: Caller): Promise<boolean>;
}

/** Registers `app.fairCalls` with `settings`; `relayName` tells this relay's reads from a paired relay's. */
export function registerFairCalls(app: FastifyInstance, relayName: string, settings: FairCallSettings): void {
  const shares = new FairShares({
    perUser: settings.callsPerUser,
    perUserShared: settings.callsPerUserShared,
    queuedPerUser: settings.callsQueuedPerUser,
    total: settings.callsAtWork,
  });
  // What ends a bounded request's share: its wait for a turn, then its place. Fastify says when the answer is sent or the
  // client went away; the response's 'close' says it too, and over HTTP also of a client gone before its answer began.
  const ends = new WeakMap<FastifyRequest, () => void>();
  app.addHook('onResponse', (request, _reply, done) => {
    ends.get(request)?.();
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    ends.get(request)?.();
    done();
  });
  const endWith = (request: FastifyRequest, reply: FastifyReply, ending: () => void) => {
    const previous = ends.get(request);
    if (previous !== undefined) reply.raw.removeListener('close', previous);
    ends.set(request, ending);
    if (reply.raw.destroyed) ending();
    else reply.raw.once('close', ending);
  };
  app.decorate('fairCalls', {
    async admit(request, reply, caller) {
      if (!isBounded(request, relayName)) return true;
      const gone = new AbortController();
      const entry = shares.enter(caller.userId, caller.sessionId ?? '', gone.signal);
      if (entry.refused) {
        refuse(request, reply, shares.bounds);
        return false;
      }
      endWith(request, reply, () => gone.abort());
      const release = await entry.turn;
      if (release === undefined) return false;
      endWith(request, reply, release);
      return true;
    },
  } satisfies FairCalls);
}

/** Whether the request is a call this bounds: a relay_tool call on /mcp that works without waiting, or a user API request. */
function isBounded(request: FastifyRequest, relayName: string): boolean {
  if (request.url.startsWith('/api/')) return !HOLDING_ROUTES.has(request.routeOptions.url ?? '');
  const body = request.body as { method?: unknown; params?: { name?: unknown; arguments?: unknown } } | null;
  if (typeof body !== 'object' || body === null || body.method !== 'tools/call') return false;
  const { name, arguments: args } = body.params ?? {};
  if ((name !== TOOL_NAME && name !== LEGACY_TOOL_NAME) || typeof args !== 'object' || args === null) return false;
  const { action, relay } = args as { action?: unknown; relay?: unknown };
  if (typeof action !== 'string' || !isActionName(action) || action === 'wait') return false;
  return !actionNamed(action).write && namesThisRelay(relay, relayName);
}

/** REMOTE_RELAY_CALL_LIMIT, naming the bound: a relay_tool result on /mcp, 429 on the user API; nothing was done. */
function refuse(request: FastifyRequest, reply: FastifyReply, bounds: FairShareBounds): void {
  const code: ToolErrorCode = 'REMOTE_RELAY_CALL_LIMIT';
  const refusal: Refusal = {
    ok: false,
    code,
    error: `Too many calls of your user at once on this relay: at most ${bounds.perUser} at work and ${bounds.queuedPerUser} waiting their turn per user. This call did nothing; try again once one of yours has answered.`,
  };
  reply.header('retry-after', String(RETRY_AFTER_SECONDS));
  if (request.url.startsWith('/api/')) {
    void reply.code(429).send({ code: refusal.code, error: refusal.error });
    return;
  }
  const { id } = request.body as { id?: unknown };
  void reply.type('application/json').send({ jsonrpc: '2.0', id: id ?? null, result: toCallToolResult(refusal) });
}
