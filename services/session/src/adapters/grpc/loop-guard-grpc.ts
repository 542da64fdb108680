import type { Clock } from '@relay/clock';
import type { SessionServiceServer } from '@relay/proto/relay/session/v1/session_service';
import { serveUnary } from '@relay/rpc';
import type { Logger } from '@relay/telemetry';
import { countAgentPrompt, grantAgentPrompts, type LoopGuardStore } from '../../app/loop-guard/agent-prompts.ts';

type SessionServiceMethods = { [K in keyof SessionServiceServer as string extends K ? never : K]: SessionServiceServer[K] };

/** The SessionService methods this file serves (merge with sessionGrpc and turnGrpc). */
export type LoopGuardMethod = 'countAgentPrompt' | 'grantAgentPrompts';

/** relay.session.v1.SessionService's loop-guard RPCs: CountAgentPrompt and GrantAgentPrompts. */
export function loopGuardGrpc(deps: { loopGuards: LoopGuardStore; clock: Clock; logger: Logger }): ReturnType<typeof serveUnary> {
  const { loopGuards, clock } = deps;
  return serveUnary<Pick<SessionServiceMethods, LoopGuardMethod>>(deps.logger, {
    countAgentPrompt: async (request) => countAgentPrompt(loopGuards, { sessionId: request.sessionId, dryRun: request.dryRun }, clock.now()),
    grantAgentPrompts: async (request) => grantAgentPrompts(loopGuards, request.sessionId, clock.now()),
  });
}
