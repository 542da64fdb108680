import type { Clock } from '@relay/clock';
import type { CodexThread, CodexThreads } from '../../app/turns/codex-threads.ts';
import type { PrismaClient } from '../../generated/prisma/client.ts';

/** Codex sessions' threads, kept with the session in the session service's database. */
export class PrismaCodexThreads implements CodexThreads {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly clock: Clock,
  ) {}

  async get(sessionId: string): Promise<CodexThread | undefined> {
    const row = await this.prisma.codexThread.findUnique({ where: { sessionId } });
    return row === null
      ? undefined
      : {
          threadId: row.threadId,
          rolloutPath: row.rolloutPath,
          rollout: row.rollout,
          tokens: { inputTokens: row.inputTokens, outputTokens: row.outputTokens },
        };
  }

  async set(sessionId: string, thread: CodexThread): Promise<void> {
    const row = {
      threadId: thread.threadId,
      rolloutPath: thread.rolloutPath,
      rollout: Buffer.from(thread.rollout),
      inputTokens: thread.tokens.inputTokens,
      outputTokens: thread.tokens.outputTokens,
      updatedAt: this.clock.now(),
    };
    await this.prisma.codexThread.upsert({ where: { sessionId }, create: { sessionId, ...row }, update: row });
  }

  async forget(sessionId: string): Promise<void> {
    await this.prisma.codexThread.deleteMany({ where: { sessionId } });
  }
}
