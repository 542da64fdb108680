import type { Clock } from '@relay/clock';
import type { SessionServiceServer } from '@relay/proto/relay/session/v1/session_service';
import { serveStream, serveUnary } from '@relay/rpc';
import type { Logger } from '@relay/telemetry';
import type { SessionStore } from '../../app/ports.ts';
import { findWaitedTurn } from '../../app/turns/find-waited-turn.ts';
import { stopTurn } from '../../app/turns/stop-turn.ts';
import type { TurnStore } from '../../app/turns/turn-store.ts';
import { waitForTurn, type WaitDeps } from '../../app/turns/wait-for-turn.ts';
import type { TurnSignals } from '../../app/turns/turn-signals.ts';
import { toTurnResult } from './wire/turn-wire.ts';

/** The generated server interface without grpc-js's index signature. */
type Methods = { [K in keyof SessionServiceServer as string extends K ? never : K]: SessionServiceServer[K] };

export interface TurnGrpcDeps {
  sessions: Pick<SessionStore, 'findSession'>;
  turns: TurnStore;
  signals: TurnSignals;
  clock: Clock;
  logger: Logger;
  /** Keep-alive and poll intervals of Wait (real time); tests shorten them. */
  wait?: Pick<WaitDeps, 'progressIntervalMs' | 'pollIntervalMs'>;
}

/** The turn methods of relay.session.v1.SessionService (Wait, StopTurn), to merge with the rest. */
export function turnGrpc(deps: TurnGrpcDeps): ReturnType<typeof serveUnary> {
  return {
    ...serveUnary<Pick<Methods, 'stopTurn'>>(deps.logger, {
      stopTurn: async (request) => {
        const stopRequested = await stopTurn(deps, request);
        // The runner holding the turn may be this replica: tell it now rather than at its next look.
        if (stopRequested) deps.signals.work();
        return { stopRequested };
      },
    }),
    ...serveStream<Pick<Methods, 'wait'>>(deps.logger, {
      wait: async function* (request, signal) {
        const turn = await findWaitedTurn(deps, request);
        for await (const event of waitForTurn(
          { ...deps.wait, turns: deps.turns, signals: deps.signals, clock: deps.clock },
          turn,
          request.waitSeconds,
          signal,
        )) {
          yield event.kind === 'progress' ? { progressSeconds: event.seconds } : { result: toTurnResult(event.turn) };
        }
      },
    }),
  };
}
