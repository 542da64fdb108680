import { randomUUID } from 'node:crypto';
import { context, propagation } from '@opentelemetry/api';
import type { Sql } from './sql.ts';

let lastCreatedAtMs = 0;

/**
 * Adds a message to the outbox inside the caller's transaction, with the active trace context in its
 * headers, so it is published if and only if the transaction commits. Returns the message id
 * (the Nats-Msg-Id consumers deduplicate on).
 */
export async function enqueue(tx: Sql, message: { subject: string; payload: unknown; id?: string }): Promise<string> {
  const id = message.id ?? randomUUID();
  const headers: Record<string, string> = {};
  propagation.inject(context.active(), headers);
  // The relay publishes in created_at order. A database default would give every row of one
  // transaction the same timestamp, so stamp rows here, strictly increasing within this process.
  const createdAtMs = Math.max(Date.now(), lastCreatedAtMs + 1);
  lastCreatedAtMs = createdAtMs;
  await tx.$executeRawUnsafe(
    'INSERT INTO "outbox" ("id", "subject", "payload", "headers", "created_at") VALUES ($1, $2, $3::jsonb, $4::jsonb, $5::timestamp(3))',
    id,
    message.subject,
    JSON.stringify(message.payload ?? null),
    JSON.stringify(headers),
    new Date(createdAtMs).toISOString(),
  );
  return id;
}
