/**
 * RemoteEventsOwner over gRPC: relay.pairing.v1.RemoteEventsService in the gateway's types.
 */
import { callUnary } from '@relay/rpc';
import type { RemoteAsk as RemoteAskMessage, RemoteEventsServiceClient } from '@relay/proto/relay/pairing/v1/remote_events';
import type { KeptEvent, RemoteAsk, RemoteAskRequest, RemoteEventsOwner, RemoteSubscriptionSpec, WatchToKeep } from '../remote-events-owner.ts';

const DEADLINE_MS = 10_000;
/** Opening one reaches the paired relay (up to its own timeout) before it answers. */
const REMOTE_DEADLINE_MS = 30_000;

export class GrpcRemoteEventsOwner implements RemoteEventsOwner {
  constructor(private readonly client: RemoteEventsServiceClient) {}

  async keepWatch(watch: WatchToKeep): Promise<void> {
    await callUnary(this.client, 'keepWatch', watch, { deadlineMs: DEADLINE_MS });
  }

  async endWatch(relay: string, id: string): Promise<boolean> {
    return (await callUnary(this.client, 'endWatch', { relay, id }, { deadlineMs: DEADLINE_MS })).ended;
  }

  async fetchWatchEvents(relay: string, id: string, after: number): Promise<{ events: KeptEvent[]; cursor: number; dropped: number; userId: string }> {
    const response = await callUnary(this.client, 'fetchWatchEvents', { relay, id, after }, { deadlineMs: DEADLINE_MS });
    return {
      events: response.events.map((event) => ({ ...event, occurredAt: event.occurredAt ?? new Date(0) })),
      cursor: response.cursor,
      dropped: response.dropped,
      userId: response.userId,
    };
  }

  async openRemoteSubscription(spec: RemoteSubscriptionSpec): Promise<{ id: string; title: string }[]> {
    return (await callUnary(this.client, 'openRemoteSubscription', spec, { deadlineMs: REMOTE_DEADLINE_MS })).sessions;
  }

  async closeRemoteSubscription(subscriptionId: string): Promise<boolean> {
    return (await callUnary(this.client, 'closeRemoteSubscription', { subscriptionId }, { deadlineMs: REMOTE_DEADLINE_MS })).closed;
  }

  async openRemoteAsk(request: RemoteAskRequest): Promise<RemoteAsk> {
    return toAsk((await callUnary(this.client, 'openRemoteAsk', request, { deadlineMs: REMOTE_DEADLINE_MS })).ask);
  }

  async listRemoteAsks(relay: string, askingSessionId: string): Promise<RemoteAsk[]> {
    return (await callUnary(this.client, 'listRemoteAsks', { relay, askingSessionId }, { deadlineMs: REMOTE_DEADLINE_MS })).asks.map(toAsk);
  }

  async withdrawRemoteAsk(relay: string, askingSessionId: string, askId: string): Promise<RemoteAsk> {
    return toAsk((await callUnary(this.client, 'withdrawRemoteAsk', { relay, askingSessionId, askId }, { deadlineMs: REMOTE_DEADLINE_MS })).ask);
  }
}

function toAsk(message: RemoteAskMessage | undefined): RemoteAsk {
  if (message === undefined) throw new Error('the pairing service answered no ask');
  return { ...message };
}
