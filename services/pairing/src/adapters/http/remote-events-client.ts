/**
 * RemoteEventsLine over HTTP (RelayClient): a paired relay's /relay/v1/subscriptions routes, called with this
 * relay's token for it. A refusal comes back as the AppError that relay answered (its code and message); no answer
 * is REMOTE_RELAY_OFFLINE, a refused token REMOTE_RELAY_AUTH.
 */
import { z } from 'zod';
import type { FetchOutcome } from '../../domain/remote-link.ts';
import type { IngestEvent, RemoteEventsLine, RemoteWatchSpec } from '../../app/remote-ports.ts';
import { callPairedRelay, type PairedRelayAddresses } from './remote-relay-call.ts';

const registeredBody = z.object({ sessions: z.array(z.object({ id: z.string(), title: z.string() })) });
const fetchedBody = z.object({
  events: z.array(
    z.object({
      id: z.string(),
      kind: z.string(),
      sessionId: z.string(),
      sessionTitle: z.string(),
      text: z.string(),
      status: z.string(),
      refId: z.string().default(''),
      occurredAt: z.coerce.date(),
    }),
  ),
  cursor: z.number().int().nonnegative(),
  dropped: z.number().int().nonnegative(),
});

export class RemoteEventsClient implements RemoteEventsLine {
  constructor(private readonly relays: PairedRelayAddresses) {}

  async register(relay: string, spec: RemoteWatchSpec): Promise<{ sessions: { id: string; title: string }[] }> {
    const body = {
      id: spec.id,
      sessions: spec.sessions,
      exclude: spec.exclude,
      events: spec.events,
      stalledMinutes: spec.stalledMinutes,
      heartbeatMinutes: spec.heartbeatMinutes,
      dryRun: spec.dryRun,
    };
    return registeredBody.parse(await callPairedRelay(this.relays, relay, 'POST', '/relay/v1/subscriptions', body));
  }

  async fetch(relay: string, id: string, after: number): Promise<FetchOutcome<IngestEvent>> {
    try {
      const answer = fetchedBody.parse(
        await callPairedRelay(this.relays, relay, 'GET', `/relay/v1/subscriptions/${encodeURIComponent(id)}/events?after=${after}`),
      );
      return { ok: true, ...answer };
    } catch {
      // No answer, a refusal or an answer we cannot read: the link counts as down until a fetch succeeds.
      return { ok: false };
    }
  }

  async end(relay: string, id: string): Promise<void> {
    await callPairedRelay(this.relays, relay, 'DELETE', `/relay/v1/subscriptions/${encodeURIComponent(id)}`);
  }
}
