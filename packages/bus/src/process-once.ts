import type { Sql } from './sql.ts';

/**
 * Records that `consumer` handled `messageId`, inside the handler's transaction. Returns false when it
 * already had, so a redelivered message changes nothing.
 */
export async function processOnce(tx: Sql, consumer: string, messageId: string): Promise<boolean> {
  const inserted = await tx.$executeRawUnsafe(
    'INSERT INTO "processed_messages" ("consumer", "message_id") VALUES ($1, $2) ON CONFLICT DO NOTHING',
    consumer,
    messageId,
  );
  return inserted === 1;
}
