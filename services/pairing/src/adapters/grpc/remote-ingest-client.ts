/**
 * RemoteIngest over gRPC: what this relay fetched from paired relays, handed to our subscription service.
 */
import { callUnary } from '@relay/rpc';
import type { SubscriptionServiceClient } from '@relay/proto/relay/subscription/v1/subscription_service';
import type { IngestEvent, RemoteIngest } from '../../app/remote-ports.ts';

const DEADLINE_MS = 10_000;

export class RemoteIngestClient implements RemoteIngest {
  constructor(private readonly client: SubscriptionServiceClient) {}

  async ingest(input: { subscriptionId: string; relay: string; events: IngestEvent[]; replayed: boolean; dropped: number }): Promise<{ ended: boolean }> {
    const response = await callUnary(this.client, 'ingestRemoteEvents', input, { deadlineMs: DEADLINE_MS });
    return { ended: response.ended };
  }

  async reportLink(input: { subscriptionId: string; relay: string; online: boolean; at: Date }): Promise<void> {
    await callUnary(this.client, 'reportLinkState', input, { deadlineMs: DEADLINE_MS });
  }

  async endRelay(relay: string): Promise<string[]> {
    const response = await callUnary(this.client, 'endRelaySubscriptions', { userId: '', relay }, { deadlineMs: DEADLINE_MS });
    return response.endedIds;
  }
}
