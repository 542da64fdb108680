import type { Schemas } from '@relay/user-api';
import { loadClientConfig } from '../config.ts';
import { GatewayApi } from '../gateway-api.ts';
import { relayPaths } from '../relay-paths.ts';
import { resolveRelayTarget } from '../relay-target.ts';
import { formatTable } from '../format-table.ts';
import { resolveSession } from './session-name.ts';
import type { ClientIo } from './sessions.ts';

/** `relay schedules`: the ⏰ list (all the user's schedules, or one conversation's); with --cancel, Cancel one. */
export async function runSchedules(options: { sessionId?: string; cancel?: string; json: boolean }, io: ClientIo): Promise<number> {
  const target = resolveRelayTarget(loadClientConfig(io.env), relayPaths());
  const api = new GatewayApi(target.url, target.token);
  if (options.cancel !== undefined) {
    const schedule = await api.cancelSchedule(options.cancel);
    io.out.write(options.json ? `${JSON.stringify({ schedule }, null, 2)}\n` : `${options.cancel} cancelled.\n`);
    return 0;
  }
  const { schedules, more } = await api.listSchedules(options.sessionId === undefined ? undefined : await resolveSession(api, options.sessionId));
  io.out.write(options.json ? `${JSON.stringify({ schedules, more }, null, 2)}\n` : `${formatSchedules(schedules, more)}\n`);
  return 0;
}

/**
 * The schedules as an aligned table: id, title, where it fires, cadence, its next time or how it ended, firings; with
 * `more`, a line saying the relay listed only the newest 500.
 */
export function formatSchedules(schedules: readonly Schemas['Schedule'][], more = false): string {
  if (schedules.length === 0) return 'No schedules.';
  const rows = schedules.map((s) => {
    const cadence = s.once ? 'once' : `every ${s.everyMinutes} min`;
    const state = s.endReason ? `ended (${s.endReason})` : s.heldForApproval ? `held since ${String(s.heldSince)}` : `next ${String(s.nextFireAt)}`;
    const skipped = s.skippedCount === undefined ? '' : `, ${s.skippedCount} skipped`;
    return [s.id, `"${s.title}"`, `"${s.session.title || s.session.id}"`, cadence, state, `${s.firedCount}${skipped}`];
  });
  return [
    formatTable(['ID', 'TITLE', 'FIRES INTO', 'CADENCE', 'STATE', 'FIRED'], rows),
    'Repeats keep a grid of UTC minutes; daylight-saving changes do not move them.',
    ...(more ? ['More schedules are listed than show here: the newest 500 do.'] : []),
  ].join('\n');
}
