/**
 * list_relays: lists the paired relays with name, url, online, version, permission and unlocked (in the
 * calling conversation). When agent sessions are on, this relay comes first, marked "self": true. Also
 * returns the wait limit of this relay. It works without a mention, without a relay, and while relay_tool is off.
 */
import { RELAY_VERSION } from '../../../domain/version.ts';
import type { ActionContext } from '../action-context.ts';
import { defineAction } from '../define-action.ts';
import { argumentsOf, type ToolArguments } from '../../../domain/tool-arguments.ts';
import { MAX_SESSIONS_AT_WORK } from '@relay/errors';
import { count, success, type Success } from '../../../domain/result.ts';
import { agentLevelName } from '../../views/pairing-view.ts';
import { getConversation } from '../../session-reads.ts';

export const listRelays = defineAction({
  name: 'list_relays',
  args: argumentsOf(),
  relay: 'none',
  write: false,
  inboxBlind: true,
  toPaired: { level: 'none', forwarded: false },
  handler: runListRelays,
});

async function runListRelays(_args: ToolArguments, { caller, relayName, settings, paired, sessions }: ActionContext): Promise<Success> {
  const self = settings.agentSessionsEnabled ? [{ name: relayName, self: true, online: true, version: RELAY_VERSION, permission: 'full', unlocked: true }] : [];
  const unlocked = paired.length === 0 ? [] : (await getConversation(sessions, caller.sessionId)).unlockedRelays;
  const others = paired.map((relay) => ({
    name: relay.name,
    url: relay.url,
    online: relay.online,
    version: relay.version,
    permission: agentLevelName(relay.level),
    unlocked: unlocked.some((unlock) => unlock.relay.toLowerCase() === relay.name.toLowerCase()),
  }));
  const relays = [...self, ...others];
  const open = relays.filter((relay) => relay.unlocked).length;
  return success(`list_relays: ${count(relays.length, 'relay')}, ${open} unlocked`, {
    self: { name: relayName },
    relays,
    limits: { maxWaitSeconds: settings.maxWaitSeconds, maxActiveSessions: MAX_SESSIONS_AT_WORK },
  });
}
