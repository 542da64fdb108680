import { loadClientConfig } from '../config.ts';
import { GatewayApi } from '../gateway-api.ts';
import { relayPaths } from '../relay-paths.ts';
import { resolveRelayTarget } from '../relay-target.ts';
import type { ClientIo } from './sessions.ts';

/** `relay schedules`: the ⏰ list (all the user's schedules, or one conversation's); with --cancel, Cancel one. */
export async function runSchedules(options: { sessionId?: string; cancel?: string; json: boolean }, io: ClientIo): Promise<number> {
  const target = resolveRelayTarget(loadClientConfig(io.env), relayPaths());
  const api = new GatewayApi(target.url, target.token);
  if (options.cancel !== undefined) {
    const ended = await api.cancelSchedule(options.cancel);
    io.out.write(options.json ? `${JSON.stringify(ended, null, 2)}\n` : `${options.cancel} cancelled.\n`);
    return 0;
  }
  const schedules = await api.listSchedules(options.sessionId);
  io.out.write(options.json ? `${JSON.stringify(schedules, null, 2)}\n` : `${formatSchedules(schedules)}\n`);
  return 0;
}

/** One line per schedule: id, title, cadence, where it fires, and its next time or how it ended. */
export function formatSchedules(schedules: readonly Record<string, unknown>[]): string {
  if (schedules.length === 0) return 'No schedules.';
  const lines = schedules.map((s) => {
    const session = s.session as { title?: string; id?: string } | undefined;
    const cadence = s.once ? 'once' : `every ${String(s.everyMinutes)} min`;
    const state = s.endReason ? `ended (${String(s.endReason)})` : s.heldForApproval ? `held since ${String(s.heldSince)}` : `next ${String(s.nextFireAt)}`;
    const skipped = typeof s.skippedCount === 'number' ? `, ${s.skippedCount} skipped` : '';
    return `${String(s.id)}  "${String(s.title)}" → "${session?.title ?? session?.id ?? ''}"  ${cadence}, ${state}, fired ${String(s.firedCount)}${skipped}`;
  });
  return [...lines, 'Repeats keep a grid of UTC minutes; daylight-saving changes do not move them.'].join('\n');
}
