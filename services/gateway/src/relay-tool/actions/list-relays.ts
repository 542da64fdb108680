/**
 * list_relays: lists the paired relays with name, url, online, version, permission and unlocked.
 * When agent sessions are on, this relay comes first, marked "self": true. Also returns the wait
 * limit of this relay. It works without a mention, without a relay, and while relay_tool is off.
 */
import { RELAY_VERSION } from '../../version.ts';
import type { Action } from '../action-context.ts';
import { MAX_ACTIVE_SESSIONS } from '../limits.ts';
import { count, success } from '../result.ts';

export const listRelays: Action = async (_args, { relayName, settings, paired }) => {
  const self = settings.agentSessionsEnabled
    ? [{ name: relayName, self: true, online: true, version: RELAY_VERSION, permission: 'full', unlocked: true }]
    : [];
  // Mentions unlock paired relays per conversation; until that is tracked, every paired relay is locked.
  const others = paired.map((relay) => ({
    name: relay.name,
    url: relay.url,
    online: relay.online,
    version: relay.version,
    permission: relay.level,
    unlocked: false,
  }));
  const relays = [...self, ...others];
  const unlocked = relays.filter((relay) => relay.unlocked).length;
  return success(`list_relays: ${count(relays.length, 'relay')}, ${unlocked} unlocked`, {
    self: { name: relayName },
    relays,
    limits: { maxWaitSeconds: settings.maxWaitSeconds, maxActiveSessions: MAX_ACTIVE_SESSIONS },
  });
};
