/**
 * One-time sign-in links for the web console: `relay up` prints one, so the person opens the console without
 * copying a token. A link is a secret stored only as its hash; redeeming it deletes it (it signs in once) and
 * makes a user token that lasts as long as the console's sign-in cookie, or until the person signs out. Links
 * expire unredeemed after a few minutes: a link left in a terminal's scrollback is worth nothing later.
 */
import type { User } from '../../domain/users/user.ts';
import { notFound, unauthenticated } from '../../domain/errors.ts';
import { tokenKindOf } from '../../domain/users/tokens.ts';
import { mintToken } from './mint-token.ts';
import type { SecretSource, SessionStore, TokenHasher } from '../ports.ts';

/** How long a link may wait to be opened. */
export const SIGN_IN_LINK_MINUTES = 10;
/** How long the console sign-in a link makes lasts: the console's cookie lasts as long. */
export const LINK_SIGN_IN_DAYS = 7;

const LINK_PREFIX = 'rly_l_';

type LinkDeps = { store: SessionStore; secrets: SecretSource; hasher: TokenHasher };

/** Makes a sign-in link for the user: its secret, shown once, and when it stops working. */
export async function createSignInLink(deps: LinkDeps, userId: string, now: Date): Promise<{ link: string; expiresAt: Date }> {
  const user = await deps.store.findUser(userId);
  if (user === undefined) throw notFound(`No user '${userId}' on this relay. No link was made.`, { field: 'user' });
  const link = LINK_PREFIX + deps.secrets.newSecret();
  const expiresAt = new Date(now.getTime() + SIGN_IN_LINK_MINUTES * 60_000);
  await deps.store.saveSignInLink({ linkHash: deps.hasher.hash(link), userId: user.id, createdAt: now, expiresAt }, now);
  return { link, expiresAt };
}

/**
 * Redeems a link once: the new user token (shown once) and whose it is. A link that is not ours, unknown, used
 * already, expired, or whose user was removed is refused, always with the same error.
 */
export async function redeemSignInLink(deps: LinkDeps, link: string, now: Date): Promise<{ token: string; user: User; expiresAt: Date }> {
  if (!link.startsWith(LINK_PREFIX)) throw unauthenticated();
  const expiresAt = new Date(now.getTime() + LINK_SIGN_IN_DAYS * 24 * 60 * 60_000);
  let token: string | undefined;
  const record = await deps.store.redeemSignInLink(deps.hasher.hash(link), now, (userId) => {
    const minted = mintToken(deps, { kind: 'user', userId }, now, expiresAt);
    token = minted.token;
    return minted.record;
  });
  const user = record === undefined ? undefined : await deps.store.findUser(record.userId);
  if (user === undefined || token === undefined) throw unauthenticated();
  return { token, user, expiresAt };
}

/** Signing out: the token a link made stops working; answers whether there was one (a personal token is left alone). */
export async function endSignIn(deps: LinkDeps, token: string): Promise<boolean> {
  if (tokenKindOf(token) !== 'user') return false;
  return deps.store.deleteSignInToken(deps.hasher.hash(token));
}
