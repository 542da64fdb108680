import type { Sql } from './sql.ts';

/**
 * Records that `consumer` handled `messageId`, inside the handler's transaction. Returns false when it
 * already had, so a redelivered message changes nothing.
 */
export async function processOnce(tx: Sql, consumer: string, messageId: string): Promise<boolean> {
  return (await processEachOnce(tx, consumer, [messageId])).has(messageId);
}

/**
 * processOnce for a batch, in one statement: records every id and answers those `consumer` had not handled
 * before (a redelivered one is left out, as is the second of two equal ids).
 */
export async function processEachOnce(tx: Sql, consumer: string, messageIds: readonly string[]): Promise<Set<string>> {
  if (messageIds.length === 0) return new Set();
  const inserted = await tx.$queryRawUnsafe<{ message_id: string }[]>(
    'INSERT INTO "processed_messages" ("consumer", "message_id") SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING RETURNING "message_id"',
    consumer,
    messageIds,
  );
  return new Set(inserted.map((row) => row.message_id));
}
