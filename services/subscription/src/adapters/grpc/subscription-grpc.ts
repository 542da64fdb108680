/**
 * relay.subscription.v1.SubscriptionService: decode the request, run the use case, encode the answer.
 */
import type { Clock } from '@relay/clock';
import { PromptState, type Subscription as SubscriptionMessage, type SubscriptionServiceServer } from '@relay/proto/relay/subscription/v1/subscription_service';
import { serveUnary } from '@relay/rpc';
import type { Logger } from '@relay/telemetry';
import {
  listSubscriptions,
  listUserSubscriptions,
  notePromptState,
  subscribe,
  transferSubscriptions,
  unsubscribe,
  type ListedSubscription,
} from '../../app/manage-subscriptions.ts';
import { computeRemoteWatch, endRelaySubscriptions, ingestRemoteEvents, reportLinkState } from '../../app/paired-relay-events.ts';
import type { WatchDeps } from '../../app/ports.ts';
import type { OwnPromptState } from '../../domain/delivery/index.ts';
import { subscriptionRefusal } from '../../domain/errors.ts';
import { parseSubscribe } from '../../domain/subscriptions/subscribe-rules.ts';
import type { Subscription } from '../../domain/subscriptions/subscription.ts';

type Methods = { [K in keyof SubscriptionServiceServer as string extends K ? never : K]: SubscriptionServiceServer[K] };

const PROMPT_STATES: Partial<Record<PromptState, OwnPromptState>> = {
  [PromptState.PROMPT_STATE_WAITING]: 'waiting',
  [PromptState.PROMPT_STATE_REPLY_RETURNED]: 'reply_returned',
  [PromptState.PROMPT_STATE_NOT_WAITING]: 'not_waiting',
};

/** A subscription on the wire; held_count and next_delivery_at when the listing counted them. */
export function toSubscriptionMessage(subscription: Subscription | ListedSubscription): SubscriptionMessage {
  const listed = 'heldCount' in subscription ? subscription : undefined;
  return {
    id: subscription.id,
    watcherSessionId: subscription.watcherSessionId,
    scope: subscription.scope,
    sessions: subscription.sessions,
    exclude: subscription.exclude,
    events: subscription.events,
    once: subscription.once,
    match: subscription.match,
    stalledMinutes: subscription.stalledMinutes,
    heartbeatMinutes: subscription.heartbeatMinutes ?? 0,
    digestMinutes: subscription.digestMinutes ?? 0,
    quietHours: subscription.quietHours ?? undefined,
    createdAt: subscription.createdAt,
    endedAt: subscription.endedAt ?? undefined,
    endReason: subscription.endReason ?? '',
    heldCount: listed?.heldCount ?? 0,
    nextDeliveryAt: listed?.nextDeliveryAt ?? undefined,
    relay: subscription.relay,
  };
}

/** `onChange`: a subscription or a watcher's events changed (the planner evaluates now). */
export function subscriptionGrpc(deps: { watch: WatchDeps; clock: Clock; logger: Logger; onChange: () => void }): ReturnType<typeof serveUnary> {
  const { watch, clock } = deps;
  return serveUnary<Methods>(deps.logger, {
    subscribe: async (request) => {
      const spec = parseSubscribe({
        watcherSessionId: request.watcherSessionId,
        sessions: request.sessions,
        exclude: request.exclude,
        events: request.events,
        once: request.once,
        match: request.match,
        stalledMinutes: request.stalledMinutes,
        heartbeatMinutes: request.heartbeatMinutes,
        digestMinutes: request.digestMinutes,
        quietHours: request.quietHours ?? null,
        resolved: request.resolvedSessions,
      });
      const { subscription, first } = await subscribe(watch, {
        userId: request.userId,
        watcherSessionId: request.watcherSessionId,
        spec,
        relay: request.relay.trim(),
        now: clock.now(),
        dryRun: request.dryRun,
      });
      return { subscription: toSubscriptionMessage(subscription), firstForWatcher: first };
    },
    unsubscribe: async (request) => {
      const id = request.all ? null : request.subscriptionId.trim();
      if (id === '') throw subscriptionRefusal('REMOTE_RELAY_INVALID_INPUT', 'unsubscribe needs subscription_id: a subscription id, or "all".');
      return { endedIds: await unsubscribe(watch, { watcherSessionId: request.watcherSessionId, subscriptionId: id, now: clock.now() }) };
    },
    listSubscriptions: async (request) => ({
      subscriptions: (await listSubscriptions(watch, request.watcherSessionId, clock.now())).map(toSubscriptionMessage),
    }),
    listUserSubscriptions: async (request) => ({ subscriptions: (await listUserSubscriptions(watch, request.userId)).map(toSubscriptionMessage) }),
    transferSubscriptions: async (request) => {
      const moved = await transferSubscriptions(watch, {
        userId: request.userId,
        from: request.fromSessionId,
        to: request.watcherSessionId,
        now: clock.now(),
        dryRun: request.dryRun,
      });
      if (!request.dryRun) deps.onChange();
      return { subscriptions: moved.map(toSubscriptionMessage) };
    },
    notePromptState: async (request) => {
      const state = PROMPT_STATES[request.state];
      if (state === undefined || request.messageId === '')
        throw subscriptionRefusal('REMOTE_RELAY_INVALID_INPUT', 'notePromptState needs a message_id and a state.');
      await notePromptState(watch, { watcherSessionId: request.watcherSessionId, messageId: request.messageId, state, now: clock.now() });
      deps.onChange();
      return {};
    },
    ingestRemoteEvents: async (request) => {
      const relay = requireRelay(request.relay, 'IngestRemoteEvents');
      const result = await ingestRemoteEvents(watch, {
        subscriptionId: request.subscriptionId,
        relay,
        events: request.events,
        replayed: request.replayed,
        dropped: request.dropped,
        now: clock.now(),
      });
      if (result.accepted > 0) deps.onChange();
      return result;
    },
    reportLinkState: async (request) => {
      const relay = requireRelay(request.relay, 'ReportLinkState');
      const now = clock.now();
      const changed = await reportLinkState(watch, { subscriptionId: request.subscriptionId, relay, online: request.online, at: request.at ?? now, now });
      if (changed) deps.onChange();
      return { changed };
    },
    endRelaySubscriptions: async (request) => {
      const relay = requireRelay(request.relay, 'EndRelaySubscriptions');
      return { endedIds: await endRelaySubscriptions(watch, { userId: request.userId === '' ? null : request.userId, relay, now: clock.now() }) };
    },
    computeWatchEvents: async (request) => {
      const { createdAt } = request;
      const missing = [request.subscriptionId === '' && 'subscription_id', request.userId === '' && 'user_id', createdAt === undefined && 'created_at'].filter(
        Boolean,
      );
      if (missing.length > 0 || createdAt === undefined)
        throw subscriptionRefusal('REMOTE_RELAY_INVALID_INPUT', `ComputeWatchEvents needs ${missing.join(', ')}.`);
      if (request.scope !== 'sessions' && request.scope !== 'all')
        throw subscriptionRefusal('REMOTE_RELAY_INVALID_INPUT', `ComputeWatchEvents scope is "sessions" or "all", got "${request.scope}".`);
      const computed = await computeRemoteWatch(
        watch,
        {
          subscriptionId: request.subscriptionId,
          userId: request.userId,
          scope: request.scope,
          sessions: request.sessions,
          exclude: request.exclude,
          events: request.events,
          stalledMinutes: request.stalledMinutes,
          heartbeatMinutes: request.heartbeatMinutes,
          createdAt,
        },
        clock.now(),
      );
      return { events: computed.events.map((event) => ({ ...event, status: '', refId: '' })), nextDueAt: computed.nextDueAt ?? undefined };
    },
  });
}

/** The paired relay's name a paired-relay call needs. */
function requireRelay(relay: string, method: string): string {
  const name = relay.trim();
  if (name === '') throw subscriptionRefusal('REMOTE_RELAY_INVALID_INPUT', `${method} needs relay: the paired relay's name.`);
  return name;
}
