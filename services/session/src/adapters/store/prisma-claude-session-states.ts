import type { Clock } from '@relay/clock';
import type { ClaudeSessionState, ClaudeSessionStates } from '../../app/turns/claude-session-states.ts';
import type { PrismaClient } from '../../generated/prisma/client.ts';

/** Claude sessions' resume state, kept with the session in the session service's database. */
export class PrismaClaudeSessionStates implements ClaudeSessionStates {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly clock: Clock,
  ) {}

  async get(sessionId: string): Promise<ClaudeSessionState | undefined> {
    const row = await this.prisma.claudeSessionState.findUnique({ where: { sessionId } });
    return row === null ? undefined : { resumeId: row.resumeId, costUsdTotal: row.costUsdTotal };
  }

  async set(sessionId: string, state: ClaudeSessionState): Promise<void> {
    const row = { ...state, updatedAt: this.clock.now() };
    await this.prisma.claudeSessionState.upsert({ where: { sessionId }, create: { sessionId, ...row }, update: row });
  }
}
