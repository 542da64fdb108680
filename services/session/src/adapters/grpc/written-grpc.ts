import type { SessionServiceServer } from '@relay/proto/relay/session/v1/session_service';
import { serveStream } from '@relay/rpc';
import type { Logger } from '@relay/telemetry';
import { followMessagesWritten, type WrittenSignals } from '../../app/external/messages-written.ts';

type SessionServiceMethods = { [K in keyof SessionServiceServer as string extends K ? never : K]: SessionServiceServer[K] };

/** The SessionService method this file serves (merge with sessionGrpc and turnGrpc). */
export type WrittenMethod = 'followMessagesWritten';

/**
 * relay.session.v1.SessionService's FollowMessagesWritten: the news of messages written into external sessions, until
 * the gateway cancels or `stopping` aborts (a replica that stops ends its followers, which follow another replica).
 */
export function writtenGrpc(deps: { signals: WrittenSignals; stopping: AbortSignal; logger: Logger }): ReturnType<typeof serveStream> {
  return serveStream<Pick<SessionServiceMethods, WrittenMethod>>(deps.logger, {
    followMessagesWritten: (_request, signal) => followMessagesWritten(deps.signals, AbortSignal.any([signal, deps.stopping])),
  });
}
