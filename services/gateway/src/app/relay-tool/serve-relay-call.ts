/**
 * The receiving side of a paired relay's relay_tool call (POST /relay/v1/tool): this relay applies its own
 * rules and answers. The call acts for the local user who owns the pairing, and its prompts carry the
 * caller's provenance (the session service starts them with the "Remote prompt" line). Before anything is read or
 * written, the call is checked here against the "Agents may" level this relay grants the pairing, "Accept prompts
 * from other relays' agents" and the hop limit (checkIncomingRelayCall), whatever the calling relay checked. Where
 * this relay's person must allow a call, this relay raises its own card: nothing the caller sends stands for it.
 */
import { SpanStatusCode } from '@opentelemetry/api';
import { INTERNAL_CODE } from '@relay/errors';
import { Attr, tracer, type Logger } from '@relay/telemetry';
import type { ActionContext } from './action-context.ts';
import type { RelayCallOrigin } from './relay-call-origin.ts';
import { actionNamed } from './action-list.ts';
import { parseAction, parseArguments } from './arguments.ts';
import { toolError } from '../../domain/errors.ts';
import { readRelayState } from './read-relay-state.ts';
import { resolveRelay } from '../../domain/relay-name.ts';
import { checkIncomingRelayCall } from '../../domain/paired-relay-policy.ts';
import { agentLevelName } from '../views/pairing-view.ts';
import { refusalFrom, type ToolResult } from '../../domain/result.ts';
import type { Owners } from '../ports.ts';

export interface RelayCallDeps extends Pick<Owners, 'sessions' | 'pairing' | 'questions' | 'subscriptions'> {
  relayName: string;
  openUrlBase: string | undefined;
  logger: Logger;
}

/** Runs one call from a paired relay and answers its result; nothing thrown escapes. One span per call. */
export function serveRelayCall(input: unknown, origin: RelayCallOrigin, deps: RelayCallDeps, signal: AbortSignal): Promise<ToolResult> {
  return tracer('gateway').startActiveSpan('relay_tool from paired relay', { attributes: { [Attr.USER_ID]: origin.userId } }, async (span) => {
    let result: ToolResult;
    let ignored: string[] = [];
    try {
      const call = parseAction(input);
      span.updateName(`relay_tool ${call.action} from paired relay`);
      span.setAttribute(Attr.TOOL_ACTION, call.action);
      const parsed = parseArguments(call);
      ignored = parsed.ignored;
      const { settings, paired } = await readRelayState(deps);
      if (resolveRelay(parsed.args.relay, deps.relayName, paired).kind !== 'this') {
        throw toolError('REMOTE_RELAY_UNSUPPORTED', `Relay "${deps.relayName}" does not pass calls on to other relays; call that relay directly.`);
      }
      const definition = actionNamed(call.action);
      const serve = definition.fromPaired;
      // The schedule actions are kept by the calling relay, and a few others only work on the caller's own relay.
      if (serve === undefined || definition.toPaired === undefined) {
        throw toolError('REMOTE_RELAY_UNSUPPORTED', `Relay "${deps.relayName}" does not take ${call.action} from another relay's agents.`);
      }
      checkIncomingRelayCall({
        what: call.action,
        needs: definition.toPaired.level,
        changesOrWatches: definition.write,
        sendsPrompt: definition.toPaired.sendsPrompt === true,
        pairing: { relayName: origin.relayName, level: agentLevelName(origin.level), acceptPrompts: origin.acceptPrompts },
        provenance: origin.provenance,
        selfName: deps.relayName,
      });
      const context: ActionContext = {
        action: definition,
        // The calling conversation lives on the other relay; here the call acts for the pairing's owner, and the
        // reads reused from this relay's actions use only the user.
        caller: { userId: origin.userId, sessionId: '' },
        relayName: deps.relayName,
        openUrlBase: deps.openUrlBase,
        // A paired relay's agents reach this relay's sessions whether or not this relay's own agents may.
        settings: { ...settings, agentSessionsEnabled: true },
        paired,
        sessions: deps.sessions,
        pairing: deps.pairing,
        questions: deps.questions,
        subscriptions: deps.subscriptions,
        signal,
        progress: async () => undefined,
      };
      result = await serve(parsed.args, context, origin);
    } catch (error) {
      result = refusalFrom(error);
      if (result.code === INTERNAL_CODE) {
        deps.logger.error({ err: error, relay: origin.relayName }, 'relay_tool call from a paired relay failed');
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
    }
    if (!result.ok) span.setAttribute(Attr.TOOL_CODE, result.code);
    span.end();
    return ignored.length > 0 ? { ...result, ignored } : result;
  });
}
