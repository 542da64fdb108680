/**
 * /relay/v1/subscriptions, where a paired relay registers a subscription to sessions of this relay and fetches
 * the events kept for it (spec, On a paired relay):
 * - POST /relay/v1/subscriptions { id, sessions, exclude, events, stalledMinutes, heartbeatMinutes, dryRun }
 *   checks the listed sessions (as the user who owns the pairing) and, unless a dry run, keeps the watch;
 * - GET /relay/v1/subscriptions/:id/events?after=<cursor> answers what was kept after the cursor (and drops
 *   what it acknowledges), with how many events were dropped in between;
 * - DELETE /relay/v1/subscriptions/:id ends the watch.
 * Every call carries the calling relay's token. With "Accept prompts from other relays' agents" off, no new
 * watch is kept (REMOTE_RELAY_PERMISSION).
 */
import type { Logger } from '@relay/telemetry';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { relayCallerOf } from '../authenticate-relay.ts';
import { callOwner, sendInvalid } from '../user-api.ts';
import type { PairingClient, RemoteEventsClient, SessionClient } from '../../../app/ports.ts';
import { keepPairedRelayWatch, pairedRelayWatchEvents } from '../../../app/paired-relay-watches.ts';

export interface RelaySubscriptionRouteDeps {
  relayName: string;
  sessions: SessionClient;
  pairing: PairingClient;
  remoteEvents: RemoteEventsClient;
  logger: Logger;
}

const minutes = z.number({ error: 'minutes must be whole numbers' }).int().min(0).max(10_080).default(0);

const WatchBody = z.object(
  {
    id: z.string({ error: "id (the subscription's id on the calling relay) must be a string" }).default(''),
    sessions: z
      .array(z.string(), { error: 'sessions must be a list of session ids, or ["all"]' })
      .min(1, { error: 'sessions must name at least one session, or "all"' }),
    exclude: z.array(z.string(), { error: 'exclude must be a list of session ids' }).default([]),
    events: z.array(z.string(), { error: 'events must be a list of event kinds' }).default([]),
    stalledMinutes: minutes,
    heartbeatMinutes: minutes,
    dryRun: z.boolean({ error: 'dryRun must be true or false' }).default(false),
  },
  { error: 'the body must be a JSON object with id, sessions, exclude, events, stalledMinutes, heartbeatMinutes and dryRun' },
);

const FetchQuery = z.object({ after: z.coerce.number({ error: 'after must be a whole number' }).int().min(0).default(0) });

/** Registers the /relay/v1/subscriptions routes on `app`. */
export function registerRelaySubscriptionRoutes(app: FastifyInstance, deps: RelaySubscriptionRouteDeps): void {
  app.post('/relay/v1/subscriptions', async (request, reply) => {
    const caller = await relayCallerOf(request, reply, deps, { what: 'subscribe', needs: 'read', changesOrWatches: true });
    if (caller === undefined) return reply;
    const body = WatchBody.safeParse(request.body ?? {});
    if (!body.success) return sendInvalid(reply, body.error);
    const sessions = await callOwner(reply, deps.logger, () => keepPairedRelayWatch(deps, caller, body.data));
    if (sessions === undefined) return reply;
    return { sessions };
  });

  app.get<{ Params: { id: string } }>('/relay/v1/subscriptions/:id/events', async (request, reply) => {
    const caller = await relayCallerOf(request, reply, deps, { what: "reading a watch's events", needs: 'read', changesOrWatches: false });
    if (caller === undefined) return reply;
    const query = FetchQuery.safeParse(request.query ?? {});
    if (!query.success) return sendInvalid(reply, query.error);
    const page = await callOwner(reply, deps.logger, () => pairedRelayWatchEvents(deps, caller, request.params.id, query.data.after));
    if (page === undefined) return reply;
    return {
      events: page.events.map((event) => ({ ...event, occurredAt: (event.occurredAt ?? new Date(0)).toISOString() })),
      cursor: page.cursor,
      dropped: page.dropped,
    };
  });

  app.delete<{ Params: { id: string } }>('/relay/v1/subscriptions/:id', async (request, reply) => {
    const caller = await relayCallerOf(request, reply, deps, { what: 'unsubscribe', needs: 'read', changesOrWatches: false });
    if (caller === undefined) return reply;
    const answer = await callOwner(reply, deps.logger, () => deps.remoteEvents.endWatch({ relay: caller.relayName, id: request.params.id }));
    if (answer === undefined) return reply;
    return { ended: answer.ended };
  });
}
