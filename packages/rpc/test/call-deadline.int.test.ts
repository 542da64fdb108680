// A unary handler's work knows its call's deadline (callDeadline) through a real grpc-js server: the deadline the caller
// gave, none when it gave none, and none for the work the handler leaves running once it has answered; a call the
// handler makes has no later deadline.
import { SessionServiceClient, SessionServiceService, type SessionServiceServer } from '@relay/proto/relay/session/v1/session_service';
import { createLogger } from '@relay/telemetry';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { callDeadline, callUnary, createClient, serveUnary, startGrpcServer, type GrpcServer } from '../src/index.ts';
import { callersFor, tokenAuth } from './fixtures/credentials.ts';

const logger = createLogger({ name: 'rpc-deadline-test', level: 'silent' });
/** A caller's deadline: far enough that the call never misses it. */
const DEADLINE_MS = 60_000;

let server: GrpcServer;
let sessions: SessionServiceClient;
/** What the handler's work saw: during the call, and in work it left running after it answered. */
let seen: { during?: number | undefined; after?: Promise<number | undefined>; inner?: number | undefined } = {};

beforeAll(async () => {
  server = await startGrpcServer({
    port: 0,
    host: '127.0.0.1',
    logger,
    auth: tokenAuth('session'),
    services: [
      {
        definition: SessionServiceService,
        implementation: serveUnary<Pick<SessionServiceServer, 'createUser'>>(logger, {
          createUser: async ({ name }) => {
            await Promise.resolve();
            if (name === 'inner') {
              seen.inner = callDeadline();
              return { userId: 'inner', token: 't' };
            }
            // A call of its own, with a deadline of its own later than its caller's.
            if (name === 'outer') await callUnary(sessions, 'createUser', { name: 'inner' }, { deadlineMs: DEADLINE_MS * 2 });
            seen.during = callDeadline();
            seen.after = new Promise((resolve) => setTimeout(() => resolve(callDeadline()), 50));
            return { userId: `user-${name}`, token: 't' };
          },
        }),
        callers: callersFor(SessionServiceService, 'gateway'),
      },
    ],
  });
  sessions = createClient(SessionServiceClient, `127.0.0.1:${server.port}`, tokenAuth('gateway'));
});

afterAll(async () => {
  sessions.close();
  await server.shutdown();
});

it("gives the handler's work its call's deadline, and none to what it leaves running once it answered", async () => {
  seen = {};
  const before = Date.now();
  await callUnary(sessions, 'createUser', { name: 'ada' }, { deadlineMs: DEADLINE_MS });
  // The server reads the deadline from the call's relative timeout: it lies between the call's start and its end.
  expect(seen.during).toBeGreaterThan(before + DEADLINE_MS / 2);
  expect(seen.during).toBeLessThanOrEqual(Date.now() + DEADLINE_MS);
  expect(await seen.after).toBeUndefined();
  expect(callDeadline()).toBeUndefined();
});

it('gives none to a call without a deadline', async () => {
  seen = {};
  await callUnary(sessions, 'createUser', { name: 'bob' });
  expect(seen.during).toBeUndefined();
});

it("gives a call a handler makes no later deadline than the handler's own call", async () => {
  seen = {};
  await callUnary(sessions, 'createUser', { name: 'outer' }, { deadlineMs: DEADLINE_MS });
  // The inner call's deadline went over the wire as a relative timeout: within a second of the outer one, not 60 s later.
  expect(Math.abs(seen.inner! - seen.during!)).toBeLessThan(1_000);
});
