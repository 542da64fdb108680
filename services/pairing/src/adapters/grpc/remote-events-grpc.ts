/**
 * relay.pairing.v1.RemoteEventsService: decode the request, run the use case, encode the answer.
 */
import type { RemoteEventsServiceServer } from '@relay/proto/relay/pairing/v1/remote_events';
import { serveUnary } from '@relay/rpc';
import type { Clock } from '@relay/clock';
import type { Logger } from '@relay/telemetry';
import type { RemoteAskStore, RemoteAsksLine, RemoteEventsLine, RemoteSubscriptionStore, RemoteWatchStore } from '../../app/remote-ports.ts';
import { openRemoteAsk, withdrawRemoteAsk } from '../../app/remote-asks.ts';
import { closeRemoteSubscription, openRemoteSubscription } from '../../app/remote-subscriptions.ts';
import { fetchWatchEvents, keepWatch } from '../../app/remote-watches.ts';

/** The generated server interface without grpc-js's index signature, which UnaryHandlers would map to never. */
type RemoteEventsMethods = { [K in keyof RemoteEventsServiceServer as string extends K ? never : K]: RemoteEventsServiceServer[K] };

export function remoteEventsGrpc(deps: {
  watches: RemoteWatchStore;
  subscriptions: RemoteSubscriptionStore;
  line: RemoteEventsLine;
  asks: RemoteAskStore;
  asksLine: RemoteAsksLine;
  clock: Clock;
  logger: Logger;
  /** A subscription was opened: fetch it now rather than at the next pass. */
  onOpened: () => void;
  /** An ask was kept here: poll it at the next look rather than after the loop's idle pause. */
  onAskKept: () => void;
}): ReturnType<typeof serveUnary> {
  const { watches, subscriptions, line, clock } = deps;
  return serveUnary<RemoteEventsMethods>(deps.logger, {
    keepWatch: async (request) => {
      const { relay, id, userId, scope, exclude, events, stalledMinutes, heartbeatMinutes } = request;
      const sessions = request.sessions.map((session) => ({ id: session.id, title: session.title }));
      await keepWatch(watches, { relay, id, userId, scope, sessions, exclude, events, stalledMinutes, heartbeatMinutes }, clock.now());
      return {};
    },
    endWatch: async (request) => ({ ended: await watches.end(request.relay, request.id) }),
    fetchWatchEvents: async (request) => {
      const page = await fetchWatchEvents(watches, { relay: request.relay, id: request.id }, request.after, clock.now());
      return { events: page.events, cursor: page.cursor, dropped: page.dropped, userId: page.userId };
    },
    openRemoteSubscription: async (request) => {
      const opened = await openRemoteSubscription(
        request.relay,
        {
          id: request.subscriptionId,
          sessions: request.sessions,
          exclude: request.exclude,
          events: request.events,
          stalledMinutes: request.stalledMinutes,
          heartbeatMinutes: request.heartbeatMinutes,
          dryRun: request.dryRun,
        },
        { line, subscriptions },
        clock.now(),
      );
      if (!request.dryRun) deps.onOpened();
      return { sessions: opened.sessions };
    },
    closeRemoteSubscription: async (request) => ({ closed: await closeRemoteSubscription(request.subscriptionId, { line, subscriptions }) }),
    openRemoteAsk: async (request) => {
      const { relay, dryRun, ...ask } = request;
      const kept = await openRemoteAsk(relay, { ...ask, dryRun }, { line: deps.asksLine, asks: deps.asks }, clock.now());
      if (!dryRun) deps.onAskKept();
      return { ask: kept };
    },
    listRemoteAsks: async (request) => ({ asks: await deps.asksLine.list(request.relay, request.askingSessionId) }),
    withdrawRemoteAsk: async (request) => ({
      ask: await withdrawRemoteAsk(request.relay, request.askingSessionId, request.askId, { line: deps.asksLine, asks: deps.asks }),
    }),
  });
}
