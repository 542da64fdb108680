/**
 * One relay_tool call, start to end: read the action, check that the tool is on, read the
 * arguments, run the action and shape its result. Every outcome is a result the agent can read;
 * nothing thrown escapes. Each call is one span, counted and timed per action (tool-call-metrics.ts).
 */
import { context as otelContext, propagation, SpanStatusCode } from '@opentelemetry/api';
import type { Clock } from '@relay/clock';
import { INTERNAL_CODE } from '@relay/errors';
import { Attr, tracer, type Logger } from '@relay/telemetry';
import type { Caller } from '../../domain/caller.ts';
import type { PendingMessages } from '@relay/proto/relay/session/v1/session_service';
import type { ActionContext, PendingAlong } from './action-context.ts';
import { actionNamed, type ActionName } from './action-list.ts';
import { parseAction, parseArguments } from './arguments.ts';
import { toolError } from '../../domain/errors.ts';
import { recordToolCall } from './tool-call-metrics.ts';
import { holdExternalCall } from './external-call-hold.ts';
import { forwardCall } from './forward-call.ts';
import { readRelayState, relayToolOn } from './read-relay-state.ts';
import { namesThisRelay, pairedTarget } from '../../domain/relay-name.ts';
import { pendingNoteOf, withPendingNote, type PendingNote } from '../../domain/pending-note.ts';
import { refusalFrom, type ToolResult } from '../../domain/result.ts';
import type { Owners } from '../ports.ts';

export interface DispatchDeps extends Owners {
  relayName: string;
  /** The relay's clock, which the session service's leases run on; the machine's when left out. */
  clock?: Clock;
  /** The base of openUrl links: the relay's public URL, when one is set. */
  openUrlBase: string | undefined;
  /**
   * How long (real time, as its client counts) an external session's call may hold its response before it answers with what it waits
   * for (RELAY_EXTERNAL_CALL_SECONDS, default 50): its client drops a call held longer (Claude Desktop, Claude Code
   * and the Inspector about 60 s). A call's own wait_seconds makes it shorter.
   */
  externalCallSeconds?: number;
  logger: Logger;
}

/** externalCallSeconds when the deployment sets none: under the 60 s MCP clients give a call, with room for the hops. */
export const EXTERNAL_CALL_SECONDS = 50;

/** The call's line to the agent: whether it is still there, and progress while it waits. */
export type CallChannel = Pick<ActionContext, 'signal' | 'progress' | 'cardsAnswerAtOnce' | 'onCardWait' | 'effects'> & {
  /** How long the client says it bears a call (MCP `_meta` "relay/answerWithinSeconds"); shortens an external caller's bound. */
  answerWithinSeconds?: number;
  /** The caller's W3C trace context (MCP `_meta.traceparent`): the call's span continues the caller's trace. */
  traceparent?: { traceparent: string; tracestate?: string };
  /** The call runs as an MCP task: no response is held, so an external caller's call is not bounded by its client's. */
  inTask?: true;
};

/** Runs one relay_tool call for the agent of `caller`'s session and answers its result. */
export function dispatchToolCall(input: unknown, caller: Caller & { sessionId: string }, deps: DispatchDeps, channel: CallChannel): Promise<ToolResult> {
  const parent = channel.traceparent === undefined ? otelContext.active() : propagation.extract(otelContext.active(), channel.traceparent);
  return tracer('gateway').startActiveSpan(
    'relay_tool',
    { attributes: { [Attr.SESSION_ID]: caller.sessionId, [Attr.USER_ID]: caller.userId } },
    parent,
    async (span) => {
      const startedAt = performance.now();
      const release = caller.external === true ? holdExternalCall(deps.sessions, caller.sessionId, deps.logger, deps.clock) : undefined;
      let action: ActionName | undefined;
      let ignored: string[] = [];
      let result: ToolResult;
      // The pending note: answered along with the action's own read where it has one that can (PendingAlong), else read
      // alongside an action that cannot change what waits for the caller, else after it.
      let along: { pending: PendingMessages | undefined } | undefined;
      const pendingAlong: PendingAlong | undefined =
        release === undefined ? undefined : { sessionId: caller.sessionId, answered: (pending) => void (along = { pending }) };
      let pending: Promise<PendingNote | undefined> | undefined;
      try {
        const call = parseAction(input);
        action = call.action;
        span.updateName(`relay_tool ${action}`);
        span.setAttribute(Attr.TOOL_ACTION, action);

        // list_relays lists the paired relays; any other call naming this relay needs them only while agent sessions are off.
        const local = action !== 'list_relays' && namesThisRelay(call.input.relay, deps.relayName);
        const { settings, paired } = await readRelayState(deps, local);
        if (action !== 'list_relays' && !relayToolOn({ settings, paired })) {
          throw toolError(
            'REMOTE_RELAY_DISABLED',
            'relay_tool is not switched on for this relay: agent sessions are off and no paired relay lets agents in. Only list_relays works. Ask the user to switch on "Agents may start and use sessions on this relay" (Settings → Relays).',
          );
        }
        const parsed = parseArguments(call);
        ignored = parsed.ignored;
        const definition = actionNamed(action);
        const context: ActionContext = {
          action: definition,
          caller,
          relayName: deps.relayName,
          openUrlBase: deps.openUrlBase,
          settings,
          paired,
          sessions: deps.sessions,
          pairing: deps.pairing,
          questions: deps.questions,
          subscriptions: deps.subscriptions,
          schedules: deps.schedules,
          remoteEvents: deps.remoteEvents,
          signal: channel.signal,
          progress: channel.progress,
          ...(deps.clock === undefined ? {} : { clock: deps.clock }),
          ...(release === undefined || channel.inTask === true ? {} : { answerBy: answerBy(deps, channel.answerWithinSeconds) }),
          ...(channel.cardsAnswerAtOnce === true ? { cardsAnswerAtOnce: true } : {}),
          ...(channel.onCardWait === undefined ? {} : { onCardWait: channel.onCardWait }),
          ...(channel.effects === undefined ? {} : { effects: channel.effects }),
          call: { action, args: parsed.args },
          ...(pendingAlong === undefined ? {} : { pendingAlong }),
        };
        // An action that cannot change what waits for the caller has the note read while it runs (inboxBlind).
        if (release !== undefined && definition.inboxBlind === true) pending = pendingOf(caller.sessionId, deps);
        const target = pairedTarget(definition, parsed.args.relay, deps.relayName, paired);
        result = target ? await forwardCall(parsed.args, target, context) : await definition.handler(parsed.args, context);
      } catch (error) {
        result = refusalFrom(error);
        if (result.code === INTERNAL_CODE) {
          deps.logger.error({ err: error, action }, 'relay_tool call failed');
          span.recordException(error instanceof Error ? error : String(error));
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
      }
      if (release !== undefined) {
        const note = along === undefined ? (pending ?? pendingOf(caller.sessionId, deps)) : Promise.resolve(pendingNoteOf(caller.sessionId, along.pending));
        const [noted] = await Promise.all([note, release()]);
        result = withPendingNote(result, noted);
      }
      if (!result.ok) span.setAttribute(Attr.TOOL_CODE, result.code);
      span.end();
      recordToolCall(action, result, startedAt);
      return ignored.length > 0 ? { ...result, ignored } : result;
    },
  );
}

/** When an external caller's call answers at the latest: the relay's bound, or sooner when its client asks so. */
function answerBy(deps: DispatchDeps, clientSeconds: number | undefined): number {
  const bound = Math.min(deps.externalCallSeconds ?? EXTERNAL_CALL_SECONDS, clientSeconds ?? Number.POSITIVE_INFINITY);
  return performance.now() + Math.max(0, bound) * 1000;
}

/** The pending note of an external session; a failure to read it costs the note, never the call's result. */
async function pendingOf(sessionId: string, deps: DispatchDeps): Promise<PendingNote | undefined> {
  try {
    return pendingNoteOf(sessionId, (await deps.sessions.getPendingMessages({ sessionId })).pending);
  } catch (error) {
    deps.logger.warn({ err: error, sessionId }, 'the pending note of an external session could not be read');
    return undefined;
  }
}
