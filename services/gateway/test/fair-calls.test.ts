// The gateway's fair shares on the real app (Fastify inject, fair-calls.ts): one user's calls past the bound are
// refused with REMOTE_RELAY_CALL_LIMIT, at once and before anything is read, on /mcp and on the user API, while
// another user's calls still answer; another user's call goes ahead of a busy user's line, and the busy user keeps
// one call at work while the other is present. The owners behind it are in-process fakes of the gateway's ports whose reads
// of a session wait until the test lets them answer; nothing is timed.
import { AppError } from '@relay/errors';
import { createLogger } from '@relay/telemetry';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../src/adapters/http/build-app.ts';
import type { FairCallSettings } from '../src/adapters/http/fair-calls.ts';
import type { PairingClient, QuestionClient, SessionClient } from '../src/app/ports.ts';

const CALLERS: Record<string, { userId: string; sessionId: string }> = {
  rly_s_alice1: { userId: 'alice', sessionId: 'a1' },
  rly_s_alice2: { userId: 'alice', sessionId: 'a2' },
  rly_s_bob: { userId: 'bob', sessionId: 'b1' },
  rly_u_alice: { userId: 'alice', sessionId: '' },
  rly_u_bob: { userId: 'bob', sessionId: '' },
};

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/**
 * The app with `edges` (by default one call of a user at work and one waiting); `reads` lists the sessions read,
 * `answerReads` lets them all answer and `answerRead` the read of one session.
 */
function start(edges: Partial<FairCallSettings> = { callsPerUser: 1, callsQueuedPerUser: 1, callsAtWork: 10 }) {
  const reads: string[] = [];
  let answerReads = () => {};
  const readsMayAnswer = new Promise<void>((resolve) => (answerReads = resolve));
  const answered = new Map<string, () => void>();
  const answerRead = (sessionId: string) => answered.get(sessionId)!();
  const sessions = {
    async authenticate({ token }: { token: string }) {
      const caller = CALLERS[token];
      if (caller === undefined) throw new AppError('UNAUTHENTICATED', 'unauthenticated', 'unknown token');
      return { caller, role: 'member', external: false };
    },
    async readSession({ sessionId }: { sessionId: string }) {
      reads.push(sessionId);
      await Promise.race([readsMayAnswer, new Promise<void>((resolve) => answered.set(sessionId, resolve))]);
      throw new AppError('REMOTE_RELAY_NOT_FOUND', 'not_found', `No session ${sessionId} on this relay.`);
    },
    async getRelaySettings() {
      return { settings: { agentSessionsEnabled: true, maxWaitSeconds: 600, maxTurnMinutes: 60, taskQuietMinutes: 10 } };
    },
  } as unknown as SessionClient;
  const pairing = {
    async listPairedRelays() {
      return { relays: [] };
    },
  } as unknown as PairingClient;
  app = buildApp({
    relayName: 'desk',
    publicUrl: 'https://desk.example.com',
    openUrlBase: undefined,
    sessions,
    pairing,
    questions: {
      async listAsks() {
        return { asks: [] };
      },
    } as unknown as QuestionClient,
    logger: createLogger({ name: 'fair-calls-test', level: 'silent' }),
    edges,
  });
  return { app, reads, answerReads, answerRead };
}

function readSession(target: FastifyInstance, token: string, sessionId: string) {
  return target.inject({
    method: 'POST',
    url: '/mcp',
    headers: { host: '127.0.0.1:7420', authorization: `Bearer ${token}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
    payload: {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'relay_tool', arguments: { action: 'read_session', relay: 'this', session: sessionId } },
    },
  });
}

/** The relay_tool result a tools/call answered in one JSON body. */
function resultOf(body: string): Record<string, unknown> {
  const { result } = JSON.parse(body) as { result: { content: { text: string }[] } };
  return JSON.parse(result.content[0]!.text) as Record<string, unknown>;
}

/** Lets the calls started run until `reached` holds (promise and I/O callbacks; nothing is timed). */
async function until(reached: () => boolean): Promise<void> {
  for (let turns = 0; !reached(); turns += 1) {
    if (turns > 10_000) throw new Error('the calls never got there');
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

describe("one user's calls past the bound are refused while another user's answer", () => {
  it('refuses the call at once with REMOTE_RELAY_CALL_LIMIT and the bound, reads nothing for it, and answers the other user', async () => {
    const { app: target, reads, answerReads } = start();
    const atWork = readSession(target, 'rly_s_alice1', 'x1');
    await until(() => reads.length === 1);
    const waiting = readSession(target, 'rly_s_alice2', 'x2');
    // Bob's call, made after Alice's second, reaches its read while hers waits her turn.
    const bobs = readSession(target, 'rly_s_bob', 'y1');
    await until(() => reads.length === 2);
    expect(reads).toEqual(['x1', 'y1']);

    const refused = await readSession(target, 'rly_s_alice1', 'x3');
    expect(refused.statusCode).toBe(200);
    expect(refused.headers['retry-after']).toBe('1');
    const refusal = resultOf(refused.body);
    expect(refusal).toMatchObject({ ok: false, code: 'REMOTE_RELAY_CALL_LIMIT' });
    expect(refusal.error).toContain('at most 1 at work and 1 waiting their turn per user');
    expect(JSON.parse(refused.body)).toMatchObject({ id: 7, result: { isError: true } });

    const apiRefused = await target.inject({ method: 'GET', url: '/api/v1/relay', headers: { authorization: 'Bearer rly_u_alice' } });
    expect(apiRefused.statusCode).toBe(429);
    expect(apiRefused.headers['retry-after']).toBe('1');
    expect(apiRefused.json()).toMatchObject({ code: 'REMOTE_RELAY_CALL_LIMIT' });

    answerReads();
    for (const answered of await Promise.all([atWork, waiting, bobs])) expect(resultOf(answered.body)).toMatchObject({ code: 'REMOTE_RELAY_NOT_FOUND' });
    // The refused call read nothing; the waiting one had its turn once the first answered.
    expect(reads).toEqual(['x1', 'y1', 'x2']);
    for (const token of ['rly_u_alice', 'rly_u_bob']) {
      expect((await target.inject({ method: 'GET', url: '/api/v1/relay', headers: { authorization: `Bearer ${token}` } })).statusCode).toBe(200);
    }
  });

  it('answers what is not a bounded call (tools/list) while the user has all their calls at work and waiting', async () => {
    const { app: target, reads, answerReads } = start();
    const atWork = readSession(target, 'rly_s_alice1', 'x1');
    await until(() => reads.length === 1);
    const waiting = readSession(target, 'rly_s_alice2', 'x2');
    const bobs = readSession(target, 'rly_s_bob', 'y1');
    await until(() => reads.length === 2);
    const list = await target.inject({
      method: 'POST',
      url: '/mcp',
      headers: {
        host: '127.0.0.1:7420',
        authorization: 'Bearer rly_s_alice1',
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
      },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
    });
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain('relay_tool');
    answerReads();
    await Promise.all([atWork, waiting, bobs]);
    expect(reads).toEqual(['x1', 'y1', 'x2']);
  });
});

describe("another user's calls beside one user's burst (the default shares: 4 alone, 1 beside another user)", () => {
  it("reads the other user's call ahead of the busy user's line, and keeps the busy user to one call at work while the other is present", async () => {
    const { app: target, reads, answerRead, answerReads } = start({});
    const tokens = ['rly_s_alice1', 'rly_s_alice2'];
    const burst = Array.from({ length: 8 }, (_, i) => readSession(target, tokens[i % 2]!, `x${i + 1}`));
    await until(() => reads.length === 4);
    const bobs = readSession(target, 'rly_s_bob', 'y1');
    await until(() => reads.length === 5);
    expect(reads).toEqual(['x1', 'x2', 'x3', 'x4', 'y1']);

    // Three of Alice's four answer: none of her waiting calls is read while one of hers is still at work.
    for (const id of ['x1', 'x2', 'x3']) answerRead(id);
    await Promise.all(burst.slice(0, 3));
    for (let turn = 0; turn < 100; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
    expect(reads).toEqual(['x1', 'x2', 'x3', 'x4', 'y1']);
    // Her last one answers: the next of hers is read, one at a time; Bob's next call, after his first, at once.
    answerRead('x4');
    await until(() => reads.length === 6);
    answerRead('y1');
    await bobs;
    const bobsNext = readSession(target, 'rly_s_bob', 'y2');
    await until(() => reads.length === 7);
    expect(reads).toEqual(['x1', 'x2', 'x3', 'x4', 'y1', 'x5', 'y2']);

    answerReads();
    for (const answer of await Promise.all([...burst, bobsNext])) expect(resultOf(answer.body)).toMatchObject({ code: 'REMOTE_RELAY_NOT_FOUND' });
    expect(reads).toEqual(['x1', 'x2', 'x3', 'x4', 'y1', 'x5', 'y2', 'x6', 'x7', 'x8']);
  });
});
