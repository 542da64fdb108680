// The transaction gate on its own: first come first served, a wait past its bound refused and never run, Prisma's
// "Unable to start a transaction" refused as the gate refuses, anything else passed on.
import { isAppError } from '@relay/errors';
import { afterEach, expect, it, vi } from 'vitest';
import { DEADLINE_MARGIN_MS } from '../src/call-deadline.ts';
import { gatedTransactions, TransactionGate, transactionBounds, ungated } from '../src/transaction-gate.ts';

afterEach(() => {
  vi.useRealTimers();
});

/** A piece of work that runs until `finish` is called, noting when it started. */
function held(name: string, started: string[]) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return {
    work: async () => {
      started.push(name);
      await done;
      return name;
    },
    finish: () => finish(),
  };
}

const codeOf = (error: unknown) => (isAppError(error) ? error.code : String(error));

it('runs at most `concurrency` at once and the others in the order they came', async () => {
  const gate = new TransactionGate({ concurrency: 2, maxQueued: 10, maxQueueMs: 60_000 });
  const started: string[] = [];
  const works = ['a', 'b', 'c', 'd'].map((name) => held(name, started));
  const runs = works.map((work) => gate.run(work.work));
  await Promise.resolve();
  expect(started).toEqual(['a', 'b']);
  works[1]!.finish();
  await runs[1];
  await vi.waitFor(() => expect(started).toEqual(['a', 'b', 'c']));
  works[0]!.finish();
  works[2]!.finish();
  await vi.waitFor(() => expect(started).toEqual(['a', 'b', 'c', 'd']));
  works[3]!.finish();
  expect(await Promise.all(runs)).toEqual(['a', 'b', 'c', 'd']);
});

it("waits at most up to a margin before its call's deadline, and begins none later; without a deadline only maxQueueMs bounds it", async () => {
  vi.useFakeTimers();
  let deadline: number | undefined;
  const gate = new TransactionGate({ concurrency: 1, maxQueued: 10, maxQueueMs: 60_000, deadline: () => deadline });
  const started: string[] = [];
  const first = held('first', started);
  const running = gate.run(first.work);
  deadline = Date.now() + DEADLINE_MARGIN_MS + 2_000;
  const late = gate.run(held('late', started).work).catch(codeOf);
  deadline = undefined;
  const unbounded = held('unbounded', started);
  const waiting = gate.run(unbounded.work);
  let refused = false;
  void late.then(() => (refused = true));
  await vi.advanceTimersByTimeAsync(1_999);
  expect(refused).toBe(false);
  await vi.advanceTimersByTimeAsync(1);
  expect(await late).toBe('REMOTE_RELAY_CALL_LIMIT');
  deadline = Date.now() + DEADLINE_MARGIN_MS;
  expect(await gate.run(held('too near', started).work).catch(codeOf)).toBe('REMOTE_RELAY_CALL_LIMIT');
  deadline = undefined;
  await vi.advanceTimersByTimeAsync(30_000);
  first.finish();
  await running;
  await vi.waitFor(() => expect(started).toEqual(['first', 'unbounded']));
  unbounded.finish();
  expect(await waiting).toBe('unbounded');
});

it('refuses a wait past maxQueueMs with REMOTE_RELAY_CALL_LIMIT and never runs it; the next in line still runs', async () => {
  vi.useFakeTimers();
  const gate = new TransactionGate({ concurrency: 1, maxQueued: 10, maxQueueMs: 5_000 });
  const started: string[] = [];
  const first = held('first', started);
  const running = gate.run(first.work);
  const late = gate.run(held('late', started).work).catch(codeOf);
  await vi.advanceTimersByTimeAsync(5_000);
  expect(await late).toBe('REMOTE_RELAY_CALL_LIMIT');
  const next = held('next', started);
  const queued = gate.run(next.work);
  first.finish();
  await running;
  await vi.waitFor(() => expect(started).toEqual(['first', 'next']));
  next.finish();
  expect(await queued).toBe('next');
});

it('refuses at once what finds the queue full', async () => {
  const gate = new TransactionGate({ concurrency: 1, maxQueued: 1, maxQueueMs: 60_000 });
  const started: string[] = [];
  const first = held('first', started);
  const second = held('second', started);
  const runs = [gate.run(first.work), gate.run(second.work)];
  expect(await gate.run(held('third', started).work).catch(codeOf)).toBe('REMOTE_RELAY_CALL_LIMIT');
  first.finish();
  second.finish();
  await Promise.all(runs);
  expect(started).toEqual(['first', 'second']);
});

it('leaves a pool two connections for its reads', () => {
  expect(transactionBounds({ options: { max: 10 } }).concurrency).toBe(8);
  expect(transactionBounds({ options: {} }).concurrency).toBe(8);
  expect(transactionBounds({ options: { max: 2 } }).concurrency).toBe(1);
});

it('a gated client refuses Prisma’s transaction that could not start as the gate does, passes other faults on, and knows its client', async () => {
  const notStarted = Object.assign(new Error('Transaction API error: Unable to start a transaction in the given time.'), { code: 'P2028' });
  const other = Object.assign(new Error('Transaction already closed'), { code: 'P2028' });
  const faults = [notStarted, other];
  const client = {
    label: 'client',
    $transaction: () => Promise.reject(faults.shift()!),
    labelled(this: { label: string }) {
      return this.label;
    },
  };
  const gated = gatedTransactions(client, new TransactionGate({ concurrency: 1, maxQueued: 1, maxQueueMs: 60_000 }));
  expect(await gated.$transaction().catch(codeOf)).toBe('REMOTE_RELAY_CALL_LIMIT');
  expect(await gated.$transaction().catch((error: unknown) => error)).toBe(other);
  expect(gated.labelled()).toBe('client');
  expect(ungated(gated)).toBe(client);
  expect(ungated(client)).toBe(client);
});
