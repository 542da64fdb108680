/**
 * WatchEventComputer over gRPC: our subscription service computes a watch's stalled, all_idle and heartbeat from
 * this relay's session activity (ComputeWatchEvents).
 */
import { callUnary } from '@relay/rpc';
import type { SubscriptionServiceClient } from '@relay/proto/relay/subscription/v1/subscription_service';
import { invalidEvent } from '../../domain/errors.ts';
import type { RegisteredWatch, WatchEventComputer } from '../../app/remote-ports.ts';
import type { RemoteEventInput } from '../../domain/remote-watch.ts';

const DEADLINE_MS = 10_000;

export class RemoteComputeClient implements WatchEventComputer {
  constructor(private readonly client: SubscriptionServiceClient) {}

  async compute(watch: RegisteredWatch): Promise<RemoteEventInput[]> {
    const request = {
      subscriptionId: watch.id,
      userId: watch.userId,
      scope: watch.scope,
      sessions: watch.sessions,
      exclude: watch.exclude,
      events: watch.events,
      stalledMinutes: watch.stalledMinutes,
      heartbeatMinutes: watch.heartbeatMinutes,
      createdAt: watch.createdAt,
    };
    const response = await callUnary(this.client, 'computeWatchEvents', request, { deadlineMs: DEADLINE_MS });
    return response.events.map((event) => {
      if (event.occurredAt === undefined) throw invalidEvent('ComputeWatchEvents', `${event.id} has no occurred_at`);
      return {
        id: event.id,
        kind: event.kind,
        userId: watch.userId,
        sessionId: event.sessionId,
        text: event.text,
        status: event.status,
        refId: event.refId,
        occurredAt: event.occurredAt,
      };
    });
  }
}
