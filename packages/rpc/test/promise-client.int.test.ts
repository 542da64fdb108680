// promiseClient: a service's generated definition as typed promises over a real grpc-js client and server, with
// the client's deadline on every unary call, none on a stream, and the same AppErrors as callUnary and callStream.
import { setTimeout as sleep } from 'node:timers/promises';
import { SessionServiceClient, SessionServiceService, type SessionServiceServer } from '@relay/proto/relay/session/v1/session_service';
import { MessageDelivery, TurnStatus } from '@relay/proto/relay/session/v1/session';
import { AppError } from '@relay/errors';
import { createLogger } from '@relay/telemetry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, promiseClient, serveStream, serveUnary, startGrpcServer, type GrpcServer, type PromiseClient } from '../src/index.ts';
import { callersFor, tokenAuth } from './fixtures/credentials.ts';

const logger = createLogger({ name: 'promise-client-test', level: 'silent' });

/** The deadline the client gives every unary call; the slow handlers below take longer. */
const DEADLINE_MS = 200;

const implementation = {
  ...serveUnary<Pick<SessionServiceServer, 'createUser' | 'authenticate'>>(logger, {
    createUser: async ({ name }) => {
      if (name === 'slow') await sleep(DEADLINE_MS * 3);
      return { userId: `user-${name}`, token: 'token-1', role: 'member' };
    },
    authenticate: async ({ token }) => {
      throw new AppError('REMOTE_RELAY_AUTH', 'unauthenticated', 'Unknown token.', { details: { token } });
    },
  }),
  ...serveStream<Pick<SessionServiceServer, 'wait'>>(logger, {
    wait: async function* ({ messageId, waitSeconds }, signal) {
      yield { progressSeconds: 1 };
      // Longer than the unary deadline: a stream is bounded by its own wait, not by the client's deadline.
      await sleep(DEADLINE_MS * 2, undefined, { signal }).catch(() => undefined);
      if (waitSeconds > 1) await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      if (signal.aborted) return;
      yield {
        result: {
          sessionId: 's1',
          messageId,
          status: TurnStatus.TURN_STATUS_DONE,
          replyText: 'done',
          replyModel: 'm',
          error: '',
          pendingQuestions: [],
          delivery: MessageDelivery.MESSAGE_DELIVERY_DELIVERED,
        },
      };
    },
  }),
};

describe('promiseClient', () => {
  let server: GrpcServer;
  let raw: SessionServiceClient;
  let sessions: PromiseClient<typeof SessionServiceService>;

  beforeAll(async () => {
    server = await startGrpcServer({
      port: 0,
      host: '127.0.0.1',
      logger,
      auth: tokenAuth('session'),
      services: [{ definition: SessionServiceService, implementation, callers: callersFor(SessionServiceService, 'gateway') }],
    });
    raw = createClient(SessionServiceClient, `127.0.0.1:${server.port}`, tokenAuth('gateway'));
    sessions = promiseClient(SessionServiceService, raw, { deadlineMs: DEADLINE_MS });
  });

  afterAll(async () => {
    raw.close();
    await server.shutdown();
  });

  it('answers a unary call with its decoded response', async () => {
    await expect(sessions.createUser({ name: 'ada', role: 'member' })).resolves.toEqual({ userId: 'user-ada', token: 'token-1', role: 'member' });
  });

  it('gives every unary call the client deadline, unless the call gives its own', async () => {
    await expect(sessions.createUser({ name: 'slow', role: '' })).rejects.toMatchObject({ code: 'DEADLINE_EXCEEDED', kind: 'deadline_exceeded' });
    await expect(sessions.createUser({ name: 'slow', role: '' }, { deadlineMs: DEADLINE_MS * 10 })).resolves.toMatchObject({ userId: 'user-slow' });
  });

  it('rejects with the AppError the service threw', async () => {
    const error = await sessions.authenticate({ token: 'nope' }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'REMOTE_RELAY_AUTH', kind: 'unauthenticated', details: { token: 'nope' } });
  });

  it('yields a stream to its end, past the unary deadline', async () => {
    const seen = [];
    for await (const event of sessions.wait({ userId: 'u1', callerSessionId: '', sessionId: 's1', messageId: 'm1', waitSeconds: 1 })) seen.push(event);
    expect(seen).toEqual([{ progressSeconds: 1 }, { result: expect.objectContaining({ messageId: 'm1', status: TurnStatus.TURN_STATUS_DONE }) }]);
  });

  it('ends a stream without an error when its signal aborts', async () => {
    const abort = new AbortController();
    const events = sessions.wait({ userId: 'u1', callerSessionId: '', sessionId: 's1', messageId: 'm2', waitSeconds: 600 }, { signal: abort.signal });
    expect(await events.next()).toEqual({ done: false, value: { progressSeconds: 1 } });
    const next = events.next();
    abort.abort();
    expect(await next).toEqual({ done: true, value: undefined });
  });
});
