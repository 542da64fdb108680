/**
 * Which OS user a session's commands run as on the command runner: its user's own for its folder (sandbox_folders,
 * given on the first ask; docs/adr/0035-a-sandbox-user-per-relay-user.md). Two sessions of one user in the same
 * folder share it (the user shared the folder); in different folders, or of different users, they never do.
 */
import type { PrismaClient } from '../../generated/prisma/client.ts';

/** The sandbox uid of the session's user in the session's folder; rejects for a session that does not exist. */
export function prismaSandboxUids(prisma: PrismaClient): (sessionId: string) => Promise<number> {
  return async (sessionId) => {
    const session = await prisma.session.findUnique({ where: { id: sessionId }, select: { userId: true, cwd: true } });
    if (session === null) throw new Error(`no session ${sessionId}`);
    // One statement: two sessions asking at once for the same folder get the same uid.
    const [row] = await prisma.$queryRaw<{ uid: number }[]>`
      INSERT INTO sandbox_folders (user_id, folder) VALUES (${session.userId}, ${session.cwd})
      ON CONFLICT (user_id, folder) DO UPDATE SET folder = EXCLUDED.folder
      RETURNING uid`;
    return row!.uid;
  };
}
