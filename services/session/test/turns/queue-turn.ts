/**
 * Turns queued straight in PostgreSQL as SendMessage queues them, and waiting for one to reach a status: for the
 * integration tests that drive the real turn runner.
 */
import { randomUUID } from 'node:crypto';
import type { PrismaClient } from '../../src/generated/prisma/client.ts';
import { until } from '../until.ts';

/**
 * Queues `text` in the session at `queuedAt`: its message and its queued turn in one transaction (with
 * `sessionRunning`, the session's state running_turn too); the turn's id.
 */
export async function queueTurn(
  prisma: PrismaClient,
  sessionId: string,
  text: string,
  queuedAt: Date,
  options: { sessionRunning?: boolean } = {},
): Promise<string> {
  const turnId = randomUUID();
  const messageId = randomUUID();
  await prisma.$transaction(async (tx) => {
    await tx.message.create({ data: { id: messageId, sessionId, role: 'user', text, createdAt: queuedAt } });
    await tx.turn.create({ data: { id: turnId, sessionId, messageId, status: 'queued', mode: 'agent', queuedAt } });
    if (options.sessionRunning === true) await tx.session.update({ where: { id: sessionId }, data: { state: 'running_turn' } });
  });
  return turnId;
}

/** Polls until the turn has one of `statuses` (real time, generous limit; nothing asserts on how long); its row. */
export function untilTurnStatus(prisma: PrismaClient, turnId: string, ...statuses: string[]) {
  return until(
    async () => {
      const row = await prisma.turn.findUniqueOrThrow({ where: { id: turnId } });
      return statuses.includes(row.status) ? row : undefined;
    },
    `turn ${turnId} is ${statuses.join(' or ')}`,
  );
}
