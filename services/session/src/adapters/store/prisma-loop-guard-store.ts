import type { GuardChange, LoopGuardStore, StoredGuard } from '../../app/loop-guard/agent-prompts.ts';
import { notFound } from '../../domain/errors.ts';
import type { PrismaClient } from '../../generated/prisma/client.ts';

/** The loop guards in the session service's database: loop_guards, reset by the user's messages (messages.seq). */
export class PrismaLoopGuardStore implements LoopGuardStore {
  constructor(private readonly prisma: PrismaClient) {}

  async change<T>(sessionId: string, now: Date, change: (stored: StoredGuard) => GuardChange<T>): Promise<T> {
    return this.prisma.$transaction(async (tx) => {
      // Locking the session row serialises counts of one conversation, whether or not its guard row exists yet.
      const sessions = await tx.$queryRawUnsafe<{ id: string }[]>('SELECT "id" FROM "sessions" WHERE "id" = $1 FOR UPDATE', sessionId);
      if (sessions.length === 0) throw notFound(`no session ${sessionId}`, { session: sessionId });
      const stored = await tx.loopGuard.findUnique({ where: { sessionId } });
      // A message the user wrote (role user, no sending session) resets the count; agents' prompts and events do not.
      const latest = await tx.message.aggregate({ where: { sessionId, role: 'user', senderSessionId: null }, _max: { seq: true } });
      const { write, result } = change({ guard: stored ?? undefined, latestUserSeq: latest._max.seq ?? 0 });
      if (write !== undefined) {
        const data = { sent: write.sent, allowed: write.allowed, userSeq: write.userSeq, updatedAt: now };
        await tx.loopGuard.upsert({ where: { sessionId }, create: { sessionId, ...data }, update: data });
      }
      return result;
    });
  }
}
