/**
 * RED per relay_tool action: every answered call counted (`relay.tool.calls`) and timed (`relay.tool.duration`)
 * by action and outcome, with the refusal code when there is one.
 */
import { INTERNAL_CODE } from '@relay/errors';
import { Attr, counter, histogram, instruments, Metric, secondsSince } from '@relay/telemetry';
import type { ActionName } from './action-list.ts';
import type { ToolResult } from '../../domain/result.ts';

const toolMetrics = instruments('gateway', (meter) => ({ calls: counter(meter, Metric.TOOL_CALLS), duration: histogram(meter, Metric.TOOL_DURATION) }));

/** The attributes of one answered call; an action that could not be read counts as `unknown`, never as what was sent. */
export function toolCallAttributes(action: ActionName | undefined, result: ToolResult): Record<string, string> {
  // Literals, not a spread of the action's key: Node 20's V8 adds each key after a spread on a slow path.
  const name = action ?? 'unknown';
  if (result.ok) return { [Attr.TOOL_ACTION]: name, [Attr.TOOL_OUTCOME]: 'ok' };
  // REMOTE_RELAY_INTERNAL is the relay's fault; every other code is a refusal the spec defines.
  return { [Attr.TOOL_ACTION]: name, [Attr.TOOL_OUTCOME]: result.code === INTERNAL_CODE ? 'failed' : 'refused', [Attr.TOOL_CODE]: result.code };
}

/** Records one answered call that started at `startedAt` (a `performance.now()` reading). */
export function recordToolCall(action: ActionName | undefined, result: ToolResult, startedAt: number): void {
  const attributes = toolCallAttributes(action, result);
  toolMetrics().calls.add(1, attributes);
  toolMetrics().duration.record(secondsSince(startedAt), attributes);
}
