/**
 * The conversation before a turn's message, as chat messages: the session's own replies are the
 * assistant's, everything else (user, other agents, events, schedules) is the user's side. The relay's notes that a
 * turn failed (role error) are for the person, not the model.
 */
import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { ConversationHistory } from '../../app/turns/provider.ts';

/** How many earlier messages a turn sends the model. */
const HISTORY_MESSAGES = 100;

export function prismaConversationHistory(prisma: PrismaClient): ConversationHistory {
  return async (sessionId, messageId) => {
    const current = await prisma.message.findUnique({ where: { id: messageId }, select: { seq: true } });
    if (current === null) return [];
    const rows = await prisma.message.findMany({
      where: { sessionId, seq: { lt: current.seq }, role: { not: 'error' } },
      orderBy: { seq: 'desc' },
      take: HISTORY_MESSAGES,
      select: { role: true, text: true },
    });
    return rows.reverse().map((row) => ({ role: row.role === 'assistant' ? 'assistant' : 'user', content: row.text }));
  };
}
