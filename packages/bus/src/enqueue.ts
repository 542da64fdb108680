import { randomUUID } from 'node:crypto';
import { context, propagation, type Context } from '@opentelemetry/api';
import type { Sql } from './sql.ts';

/** A message for the outbox. `trace`: the context whose trace it continues (the active one by default). */
export type OutboxEntry = { subject: string; payload: unknown; id?: string; trace?: Context };

let lastCreatedAtMs = 0;

/**
 * Adds a message to the outbox inside the caller's transaction, with the active trace context in its
 * headers, so it is published if and only if the transaction commits. Returns the message id
 * (the Nats-Msg-Id consumers deduplicate on).
 */
export async function enqueue(tx: Sql, message: OutboxEntry): Promise<string> {
  const [id] = await enqueueAll(tx, [message]);
  return id!;
}

/** enqueue for several messages in one statement, in their order; returns their ids. */
export async function enqueueAll(tx: Sql, messages: readonly OutboxEntry[]): Promise<string[]> {
  if (messages.length === 0) return [];
  const rows = messages.map((message) => {
    const headers: Record<string, string> = {};
    propagation.inject(message.trace ?? context.active(), headers);
    // The relay publishes in created_at order. A database default would give every row of one
    // transaction the same timestamp, so stamp rows here, strictly increasing within this process.
    const createdAtMs = Math.max(Date.now(), lastCreatedAtMs + 1);
    lastCreatedAtMs = createdAtMs;
    return { id: message.id ?? randomUUID(), subject: message.subject, payload: message.payload ?? null, headers, created_at: new Date(createdAtMs).toISOString() };
  });
  await tx.$executeRawUnsafe(
    `INSERT INTO "outbox" ("id", "subject", "payload", "headers", "created_at")
     SELECT r."id", r."subject", r."payload", r."headers", r."created_at"
       FROM jsonb_to_recordset($1::jsonb) AS r("id" text, "subject" text, "payload" jsonb, "headers" jsonb, "created_at" timestamp(3))`,
    JSON.stringify(rows),
  );
  return rows.map((row) => row.id);
}
