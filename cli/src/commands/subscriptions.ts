import type { Schemas } from '@relay/user-api';
import { loadClientConfig } from '../config.ts';
import { GatewayApi } from '../gateway-api.ts';
import { relayPaths } from '../relay-paths.ts';
import { resolveRelayTarget } from '../relay-target.ts';
import { formatTable } from '../format-table.ts';
import { resolveSession } from './session-name.ts';
import type { ClientIo } from './sessions.ts';

/** `relay subscriptions SESSION`: the watcher's list; with --unsubscribe, Unsubscribe one. */
export async function runSubscriptions(options: { sessionId: string; unsubscribe?: string; json: boolean }, io: ClientIo): Promise<number> {
  const target = resolveRelayTarget(loadClientConfig(io.env), relayPaths());
  const api = new GatewayApi(target.url, target.token);
  const sessionId = await resolveSession(api, options.sessionId);
  if (options.unsubscribe !== undefined) {
    const ended = await api.unsubscribe(sessionId, options.unsubscribe);
    io.out.write(options.json ? `${JSON.stringify({ endedIds: ended }, null, 2)}\n` : `${options.unsubscribe} unsubscribed.\n`);
    return 0;
  }
  const subscriptions = await api.listSubscriptions(sessionId);
  io.out.write(options.json ? `${JSON.stringify({ subscriptions }, null, 2)}\n` : `${formatSubscriptions(subscriptions)}\n`);
  return 0;
}

/** The subscriptions as an aligned table: id, what it watches (and on which relay), its events, and what it holds or why it ended. */
export function formatSubscriptions(subscriptions: readonly Schemas['Subscription'][]): string {
  if (subscriptions.length === 0) return 'No subscriptions.';
  const rows = subscriptions.map((s) => {
    const sessions = s.sessions === 'all' ? 'all sessions' : s.sessions.map((session) => `"${session.title || session.id}"`).join(', ');
    const where = s.relay === undefined ? '' : ` on ${s.relay}`;
    const state = s.ended ? `ended (${String(s.reason)})` : `${String(s.heldCount)} held${s.nextDeliveryAt ? `, next ${s.nextDeliveryAt}` : ''}`;
    return [s.id, `${sessions}${where}`, `${s.events.join(', ')}${s.once ? ' (once)' : ''}`, state];
  });
  return formatTable(['ID', 'WATCHES', 'EVENTS', 'STATE'], rows);
}
