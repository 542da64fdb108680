/**
 * Which OS user a session's commands run as on the command runner: its relay user's own (users.sandbox_uid, given to
 * each user when they are made; docs/adr/0035-a-sandbox-user-per-relay-user.md).
 */
import type { PrismaClient } from '../../generated/prisma/client.ts';

/** The sandbox uid of the session's user; rejects for a session that does not exist. */
export function prismaSandboxUids(prisma: PrismaClient): (sessionId: string) => Promise<number> {
  return async (sessionId) => {
    const session = await prisma.session.findUnique({ where: { id: sessionId }, select: { user: { select: { sandboxUid: true } } } });
    if (session === null) throw new Error(`no session ${sessionId}`);
    return session.user.sandboxUid;
  };
}
