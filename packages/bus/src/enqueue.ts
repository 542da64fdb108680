import { randomUUID } from 'node:crypto';
import { context, propagation } from '@opentelemetry/api';
import { outgoing, type BusContract, type OutboxEntry, type OutgoingOptions } from './contract.ts';
import type { Sql } from './sql.ts';

let lastCreatedAtMs = 0;

/**
 * Adds `message` to the outbox inside the caller's transaction, on the contract's subject and in its JSON mapping,
 * with the active trace context in its headers, so it is published if and only if the transaction commits.
 * Returns the message id (the Nats-Msg-Id consumers deduplicate on).
 */
export async function enqueue<T>(tx: Sql, contract: BusContract<T>, message: NoInfer<T>, options?: OutgoingOptions): Promise<string>;
/** The same for an entry built by `outgoing` (a function choosing between subjects returns one). */
export async function enqueue(tx: Sql, entry: OutboxEntry): Promise<string>;
export async function enqueue<T>(tx: Sql, target: BusContract<T> | OutboxEntry, message?: T, options?: OutgoingOptions): Promise<string> {
  const entry = 'codec' in target ? outgoing(target, message as T, options) : target;
  const [id] = await enqueueAll(tx, [entry]);
  return id!;
}

/** A row of a service's outbox table, as an OutboxRelay publishes it. */
export type OutboxRow = { id: string; subject: string; payload: unknown; headers: Record<string, string> | null };

/** enqueue for several entries (built by `outgoing`) in one statement, in their order; returns their ids. */
export async function enqueueAll(tx: Sql, messages: readonly OutboxEntry[]): Promise<string[]> {
  return (await enqueueRows(tx, messages)).map((row) => row.id);
}

/** enqueueAll answering the rows it wrote, for a caller that publishes them itself once they commit (`OutboxRelay.publishCommitted`). */
export async function enqueueRows(tx: Sql, messages: readonly OutboxEntry[]): Promise<OutboxRow[]> {
  if (messages.length === 0) return [];
  const rows = messages.map((message) => {
    const headers: Record<string, string> = {};
    propagation.inject(message.trace ?? context.active(), headers);
    // The relay publishes in created_at order. A database default would give every row of one
    // transaction the same timestamp, so stamp rows here, strictly increasing within this process.
    const createdAtMs = Math.max(Date.now(), lastCreatedAtMs + 1);
    lastCreatedAtMs = createdAtMs;
    return {
      id: message.id ?? randomUUID(),
      subject: message.subject,
      payload: message.payload ?? null,
      headers,
      created_at: new Date(createdAtMs).toISOString(),
    };
  });
  await tx.$executeRawUnsafe(
    `INSERT INTO "outbox" ("id", "subject", "payload", "headers", "created_at")
     SELECT r."id", r."subject", r."payload", r."headers", r."created_at"
       FROM jsonb_to_recordset($1::jsonb) AS r("id" text, "subject" text, "payload" jsonb, "headers" jsonb, "created_at" timestamp(3))`,
    JSON.stringify(rows),
  );
  return rows.map(({ id, subject, payload, headers }) => ({ id, subject, payload, headers }));
}
