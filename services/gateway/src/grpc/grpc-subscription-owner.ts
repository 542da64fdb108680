/**
 * SubscriptionOwner over gRPC: relay.subscription.v1.SubscriptionService in the gateway's types.
 */
import { callUnary } from '@relay/rpc';
import { PromptState, type Subscription, type SubscriptionServiceClient } from '@relay/proto/relay/subscription/v1/subscription_service';
import type { RemoteWatchEvent, SubscribeInput, SubscriptionOwner, WatchSubscription } from '../ports.ts';

const DEADLINE_MS = 10_000;

const PROMPT_STATES = {
  waiting: PromptState.PROMPT_STATE_WAITING,
  reply_returned: PromptState.PROMPT_STATE_REPLY_RETURNED,
  not_waiting: PromptState.PROMPT_STATE_NOT_WAITING,
} as const;

function toSubscription(message: Subscription): WatchSubscription {
  return {
    id: message.id,
    watcherSessionId: message.watcherSessionId,
    scope: message.scope === 'all' ? 'all' : 'sessions',
    sessions: message.sessions.map((session) => ({ id: session.id, title: session.title })),
    exclude: message.exclude,
    events: message.events,
    once: message.once,
    match: message.match,
    stalledMinutes: message.stalledMinutes,
    heartbeatMinutes: message.heartbeatMinutes || null,
    digestMinutes: message.digestMinutes || null,
    quietHours: message.quietHours ?? null,
    endedAt: message.endedAt,
    endReason: message.endReason,
    heldCount: message.heldCount,
    nextDeliveryAt: message.nextDeliveryAt,
    relay: message.relay,
  };
}

export class GrpcSubscriptionOwner implements SubscriptionOwner {
  constructor(private readonly client: SubscriptionServiceClient) {}

  async subscribe(input: SubscribeInput): Promise<{ subscription: WatchSubscription; firstForWatcher: boolean }> {
    const response = await callUnary(
      this.client,
      'subscribe',
      {
        userId: input.userId,
        watcherSessionId: input.watcherSessionId,
        sessions: input.sessions,
        exclude: input.exclude,
        events: input.events,
        once: input.once,
        match: input.match,
        stalledMinutes: input.stalledMinutes,
        heartbeatMinutes: input.heartbeatMinutes,
        digestMinutes: input.digestMinutes,
        quietHours: input.quietHours,
        dryRun: input.dryRun,
        resolvedSessions: input.resolved,
        relay: input.relay ?? '',
      },
      { deadlineMs: DEADLINE_MS },
    );
    if (response.subscription === undefined) throw new Error('Subscribe answered no subscription');
    return { subscription: toSubscription(response.subscription), firstForWatcher: response.firstForWatcher };
  }

  async unsubscribe(userId: string, watcherSessionId: string, subscriptionId: string): Promise<string[]> {
    const all = subscriptionId === 'all';
    const response = await callUnary(this.client, 'unsubscribe', { userId, watcherSessionId, subscriptionId: all ? '' : subscriptionId, all }, { deadlineMs: DEADLINE_MS });
    return response.endedIds;
  }

  async listSubscriptions(userId: string, watcherSessionId: string): Promise<WatchSubscription[]> {
    const response = await callUnary(this.client, 'listSubscriptions', { userId, watcherSessionId }, { deadlineMs: DEADLINE_MS });
    return response.subscriptions.map(toSubscription);
  }

  async listUserSubscriptions(userId: string): Promise<WatchSubscription[]> {
    const response = await callUnary(this.client, 'listUserSubscriptions', { userId }, { deadlineMs: DEADLINE_MS });
    return response.subscriptions.map(toSubscription);
  }

  async transferSubscriptions(userId: string, watcherSessionId: string, fromSessionId: string, dryRun: boolean): Promise<WatchSubscription[]> {
    const response = await callUnary(this.client, 'transferSubscriptions', { userId, watcherSessionId, fromSessionId, dryRun }, { deadlineMs: DEADLINE_MS });
    return response.subscriptions.map(toSubscription);
  }

  async notePromptState(watcherSessionId: string, messageId: string, state: keyof typeof PROMPT_STATES): Promise<void> {
    await callUnary(this.client, 'notePromptState', { watcherSessionId, messageId, state: PROMPT_STATES[state] }, { deadlineMs: DEADLINE_MS });
  }

  async ingestRemoteEvents(input: { subscriptionId: string; relay: string; events: RemoteWatchEvent[]; replayed: boolean; dropped: number }): Promise<{ accepted: number; duplicates: number }> {
    return callUnary(this.client, 'ingestRemoteEvents', input, { deadlineMs: DEADLINE_MS });
  }

  async reportLinkState(input: { subscriptionId: string; relay: string; online: boolean; at: Date }): Promise<{ changed: boolean }> {
    return callUnary(this.client, 'reportLinkState', input, { deadlineMs: DEADLINE_MS });
  }

  async endRelaySubscriptions(userId: string | null, relay: string): Promise<string[]> {
    const response = await callUnary(this.client, 'endRelaySubscriptions', { userId: userId ?? '', relay }, { deadlineMs: DEADLINE_MS });
    return response.endedIds;
  }
}
