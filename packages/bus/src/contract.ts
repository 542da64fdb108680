import type { Context } from '@opentelemetry/api';

/** How a message on the bus is written and read: ts-proto's JSON mapping of its proto message. */
export type BusCodec<T> = {
  // ts-proto declares `fromJSON(object: any)`; `unknown` here takes it (a method's parameters are bivariant).
  fromJSON(object: unknown): T;
  toJSON(message: T): unknown;
};

/**
 * One subject on the bus as @relay/proto/relay/bus-contracts declares it (generated from the protos' bus options):
 * the subject, the stream holding it and the codec of the message it carries.
 */
export type BusContract<T = unknown> = {
  readonly subject: string;
  readonly stream: string;
  readonly codec: BusCodec<T>;
};

/** A JetStream stream as @relay/proto/relay/bus-contracts declares it. */
export type BusStream = { readonly name: string; readonly subjects: readonly string[] };

declare const encodedByContract: unique symbol;

/**
 * A message for the outbox: its subject and its payload in the contract's JSON mapping. Only `outgoing` makes one
 * (the brand), so every payload on the bus went through its subject's codec.
 */
export type OutboxEntry = {
  readonly subject: string;
  readonly payload: unknown;
  readonly id?: string;
  readonly trace?: Context;
  readonly [encodedByContract]: true;
};

/**
 * The outbox entry publishing `message` on the contract's subject, JSON-encoded with its codec. `id`: the
 * Nats-Msg-Id (a fresh UUID by default); `trace`: the context whose trace it continues (the active one by default).
 */
export function outgoing<T>(contract: BusContract<T>, message: NoInfer<T>, options: OutgoingOptions = {}): OutboxEntry {
  return { subject: contract.subject, payload: contract.codec.toJSON(message), ...options } as OutboxEntry;
}

export type OutgoingOptions = { id?: string; trace?: Context };
