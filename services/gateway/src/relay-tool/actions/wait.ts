/**
 * wait: keeps waiting for a reply that send or create_session did not get in time, for as long as
 * wait_seconds asks, up to the relay's longest wait per tool call (a note says when it was capped).
 * Reading and waiting are never gated by cards.
 */
import type { Action } from '../action-context.ts';
import { requireArguments } from '../arguments.ts';
import { awaitTurn } from '../await-turn.ts';
import { requireNotOnItself } from '../not-on-itself.ts';
import { success } from '../result.ts';
import { thisRelay } from '../this-relay.ts';
import { shortId, turnFields, turnPhrase } from '../turn-result.ts';
import { planWait } from '../wait-seconds.ts';

export const wait: Action = async (args, context) => {
  requireArguments('wait', args, ['session', 'message_id']);
  const plan = planWait('wait', args.wait_seconds, context.settings.maxWaitSeconds);
  const relay = thisRelay(args.relay, context);
  const { caller } = context;
  requireNotOnItself('wait', args.session, caller);

  const result = await awaitTurn(
    { userId: caller.userId, callerSessionId: caller.sessionId, sessionId: args.session, messageId: args.message_id, waitSeconds: plan.waitSeconds },
    context,
  );
  return success(
    `wait → ${relay} session ${shortId(result.sessionId)}: ${turnPhrase(result)}`,
    { ...turnFields(result, context.openUrlBase), ...(plan.note ? { note: plan.note } : {}) },
    relay,
  );
};
