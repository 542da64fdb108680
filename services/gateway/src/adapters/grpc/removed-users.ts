/**
 * A paired relay acts for the local user who paired it; once that user is removed, it acts for no one. The pairing
 * service ends such pairings when it takes the session service's relay.session.v1.user_removed, which may come a
 * moment later (or, with the pairing service away, much later): until then every relay token is checked here against
 * the users the session service still has, so a call through a removed user's pairing is refused at once.
 */
import { appError } from '@relay/errors';
import type { PairingClient, SessionClient } from '../../app/ports.ts';

/** `pairing` whose authenticateRelay answers unauthenticated (REMOTE_RELAY_AUTH) for a pairing whose user was removed. */
export function refusingRemovedUsers(pairing: PairingClient, sessions: Pick<SessionClient, 'listUsers'>): PairingClient {
  const authenticateRelay: PairingClient['authenticateRelay'] = async (request, ...rest) => {
    const caller = await pairing.authenticateRelay(request, ...rest);
    // Asked every time, never held: the users of a relay are a team's, and a removal must count on every replica.
    const { users } = await sessions.listUsers({});
    if (!users.some((user) => user.id === caller.userId)) {
      throw appError('REMOTE_RELAY_AUTH', 'The user who paired these relays was removed here; pair the relays again.');
    }
    return caller;
  };
  return new Proxy(pairing, {
    get(target, key) {
      if (key === 'authenticateRelay') return authenticateRelay;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
