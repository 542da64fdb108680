import { credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { HealthCheckResponse_ServingStatus as ServingStatus, HealthClient, type HealthCheckResponse } from '@relay/proto/grpc/health/v1/health';
import { SessionServiceClient, SessionServiceService, type SessionServiceServer } from '@relay/proto/relay/session/v1/session_service';
import { AppError, INTERNAL_CODE } from '@relay/errors';
import { createLogger } from '@relay/telemetry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callStream, callUnary, checkHealth, createClient, LIVENESS_SERVICE, serveStream, serveUnary, startGrpcServer, type GrpcServer } from '../src/index.ts';
import { freePort } from '@relay/testing';
import { callersFor, tokenAuth } from './fixtures/credentials.ts';
import { WatchServiceClient, WatchServiceService, type WatchEvent, type WatchServiceServer } from './fixtures/watch-service.ts';

const serverAuth = tokenAuth('session');
const gateway = tokenAuth('gateway');
const sessionCallers = callersFor(SessionServiceService, 'gateway');

const logged: Record<string, unknown>[] = [];
const logger = createLogger({
  name: 'rpc-test',
  level: 'debug',
  destination: { write: (line: string) => void logged.push(JSON.parse(line) as Record<string, unknown>) },
});

/** Lets a test hold a handler open and observe its cancellation. */
const hanging = { started: deferred(), aborted: deferred() };

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => {};
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

const sessionService = serveUnary<Pick<SessionServiceServer, 'createUser' | 'authenticate' | 'getRelaySettings'>>(logger, {
  createUser: async ({ name }) => {
    if (name === 'bug') throw new Error('connection string postgres://admin:s3cret@db');
    if (name === 'slow') return new Promise(() => {});
    return { userId: `user-${name}`, token: 'token-1' };
  },
  getRelaySettings: () => {
    throw new Error('thrown before any promise');
  },
  authenticate: async ({ token }) => {
    throw new AppError('REMOTE_RELAY_UNAUTHENTICATED', 'unauthenticated', 'Unknown token.', { details: { token, hints: ['Grüße', 'x'] } });
  },
});

const watchService = serveStream<WatchServiceServer>(logger, {
  watch: async function* ({ count, failWith, hang }, signal) {
    for (let n = 1; n <= count; n += 1) yield { n };
    if (failWith === 'bug') throw new Error('secret stack');
    if (failWith) throw new AppError(failWith, 'failed_precondition', 'No more.', { details: { after: count } });
    if (hang) {
      hanging.started.resolve();
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      hanging.aborted.resolve();
    }
  },
});

async function collect(events: AsyncIterable<WatchEvent>): Promise<number[]> {
  const seen: number[] = [];
  for await (const event of events) seen.push(event.n);
  return seen;
}

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('startGrpcServer, serveUnary, serveStream and the client helpers', () => {
  let server: GrpcServer;
  let address: string;
  let sessions: SessionServiceClient;
  let watches: WatchServiceClient;

  beforeAll(async () => {
    server = await startGrpcServer({
      port: 0,
      host: '127.0.0.1',
      logger,
      auth: serverAuth,
      services: [
        { definition: SessionServiceService, implementation: sessionService, callers: sessionCallers },
        { definition: WatchServiceService, implementation: watchService, callers: callersFor(WatchServiceService, 'gateway') },
      ],
    });
    address = `127.0.0.1:${server.port}`;
    sessions = createClient(SessionServiceClient, address, gateway);
    watches = createClient(WatchServiceClient, address, gateway);
  });

  afterAll(async () => {
    sessions.close();
    watches.close();
    await server.shutdown();
  });

  it('binds the port it was given 0 for', () => {
    expect(server.port).toBeGreaterThan(0);
  });

  it('returns a unary response', async () => {
    await expect(callUnary(sessions, 'createUser', { name: 'ada' })).resolves.toEqual({ userId: 'user-ada', token: 'token-1' });
  });

  it('also accepts explicit request and response types', async () => {
    const response = await callUnary<{ name: string }, { userId: string }>(sessions, 'createUser', { name: 'bob' });
    expect(response.userId).toBe('user-bob');
  });

  it('carries an AppError across with its code, kind, message and details', async () => {
    const error = await rejection(callUnary(sessions, 'authenticate', { token: 'nope' }));
    expect(error).toMatchObject({
      code: 'REMOTE_RELAY_UNAUTHENTICATED',
      kind: 'unauthenticated',
      message: 'Unknown token.',
      details: { token: 'nope', hints: ['Grüße', 'x'] },
    });
    expect(logged).toContainEqual(expect.objectContaining({ level: 'debug', msg: 'rpc refused', code: 'REMOTE_RELAY_UNAUTHENTICATED' }));
  });

  it('turns a plain Error into REMOTE_RELAY_INTERNAL without its message, and logs its stack', async () => {
    const error = await rejection(callUnary(sessions, 'createUser', { name: 'bug' }));
    expect(error).toMatchObject({ code: INTERNAL_CODE, kind: 'internal', details: {} });
    expect(error.message).not.toContain('s3cret');
    const line = logged.find((entry) => entry.msg === 'rpc failed');
    expect(line).toMatchObject({ level: 'error', path: '/relay.session.v1.SessionService/CreateUser' });
    expect(JSON.stringify(line)).toContain('s3cret');
  });

  it('maps a handler that throws synchronously like one that rejects', async () => {
    const error = await rejection(callUnary(sessions, 'getRelaySettings', {}));
    expect(error).toMatchObject({ code: INTERNAL_CODE, kind: 'internal' });
  });

  it('answers UNIMPLEMENTED for a method the service left out', async () => {
    const error = await rejection(callUnary(sessions, 'listSessions', { userId: 'u', scope: '', limit: 0, offset: 0 }));
    expect(error.kind).toBe('unimplemented');
  });

  it('fails with DEADLINE_EXCEEDED when the deadline passes first', async () => {
    const error = await rejection(callUnary(sessions, 'createUser', { name: 'slow' }, { deadlineMs: 50 }));
    expect(error).toMatchObject({ code: 'DEADLINE_EXCEEDED', kind: 'deadline_exceeded' });
  });

  it('streams responses until the handler is done', async () => {
    expect(await collect(callStream(watches, 'watch', { count: 3 }))).toEqual([1, 2, 3]);
  });

  it('ends a stream with the AppError its handler threw, after the items it yielded', async () => {
    const seen: number[] = [];
    const error = await rejection(
      (async () => {
        for await (const event of callStream(watches, 'watch', { count: 2, failWith: 'REMOTE_RELAY_CLOSED' })) seen.push(event.n);
      })(),
    );
    expect(seen).toEqual([1, 2]);
    expect(error).toMatchObject({ code: 'REMOTE_RELAY_CLOSED', kind: 'failed_precondition', details: { after: 2 } });
  });

  it('hides a plain Error thrown by a stream handler', async () => {
    const error = await rejection(collect(callStream(watches, 'watch', { count: 0, failWith: 'bug' })));
    expect(error).toMatchObject({ code: INTERNAL_CODE, kind: 'internal' });
    expect(error.message).not.toContain('secret');
  });

  it('aborts the handler when the client cancels', async () => {
    const abort = new AbortController();
    const events = callStream(watches, 'watch', { count: 1, hang: true }, { signal: abort.signal });
    expect(await events.next()).toEqual({ done: false, value: { n: 1 } });
    await hanging.started.promise;
    const next = events.next();
    abort.abort();
    await hanging.aborted.promise;
    expect(await next).toEqual({ done: true, value: undefined });
  });

  it('reports SERVING for the server and each service, and NOT_FOUND (false) for others', async () => {
    expect(await checkHealth(address)).toBe(true);
    expect(await checkHealth(address, 'relay.session.v1.SessionService')).toBe(true);
    expect(await checkHealth(address, 'relay.test.v1.WatchService')).toBe(true);
    expect(await checkHealth(address, 'relay.nope.v1.NopeService')).toBe(false);
  });
});

describe('grpc.health.v1', () => {
  let server: GrpcServer;
  let health: HealthClient;
  beforeAll(async () => {
    server = await startGrpcServer({
      port: 0,
      host: '127.0.0.1',
      logger,
      auth: serverAuth,
      services: [{ definition: SessionServiceService, implementation: sessionService, callers: sessionCallers }],
    });
    health = new HealthClient(`127.0.0.1:${server.port}`, credentials.createInsecure());
  });
  afterAll(() => health.close());

  it('Check answers NOT_FOUND for a service the server does not serve', async () => {
    const error = await new Promise<ServiceError | null>((resolve) => health.check({ service: 'relay.nope.v1.NopeService' }, (failure) => resolve(failure)));
    expect(error).toMatchObject({ code: status.NOT_FOUND, details: "no health status for service 'relay.nope.v1.NopeService'" });
  });

  it('List gives the server and each service with its status', async () => {
    const listed = await new Promise((resolve, reject) => health.list({}, (error, response) => (error ? reject(error) : resolve(response.statuses))));
    expect(listed).toEqual({
      '': { status: ServingStatus.SERVING },
      'relay.session.v1.SessionService': { status: ServingStatus.SERVING },
      liveness: { status: ServingStatus.SERVING },
    });
  });

  it('Watch sends the status at once and again when it changes, SERVICE_UNKNOWN for an unknown service, and ends at shutdown without holding it', async () => {
    const watched = (service: string) => {
      const statuses: ServingStatus[] = [];
      const call = health.watch({ service }, new Metadata());
      call.on('data', (response: HealthCheckResponse) => statuses.push(response.status));
      const ended = new Promise<void>((resolve) => call.on('end', resolve).on('error', () => resolve()));
      return { statuses, ended };
    };
    const whole = watched('');
    const unknown = watched('relay.nope.v1.NopeService');
    await expect.poll(() => whole.statuses).toEqual([ServingStatus.SERVING]);
    await expect.poll(() => unknown.statuses).toEqual([ServingStatus.SERVICE_UNKNOWN]);

    server.drain();
    await expect.poll(() => whole.statuses).toEqual([ServingStatus.SERVING, ServingStatus.NOT_SERVING]);

    const loggedBefore = logged.length;
    await server.shutdown();
    await whole.ended;
    await unknown.ended;
    expect(unknown.statuses).toEqual([ServingStatus.SERVICE_UNKNOWN]);
    // The watches ended with the shutdown: it did not wait out its timeout and cancel them.
    expect(logged.slice(loggedBefore).map((line) => line.msg)).not.toContain('grpc calls still running at shutdown, cancelling them');
  });
});

describe('shutdown and unreachable services', () => {
  it('stops serving health after shutdown, and callers then see SERVICE_UNAVAILABLE', async () => {
    const server = await startGrpcServer({
      port: 0,
      host: '127.0.0.1',
      logger,
      auth: serverAuth,
      services: [{ definition: SessionServiceService, implementation: sessionService, callers: sessionCallers }],
    });
    const address = `127.0.0.1:${server.port}`;
    expect(await checkHealth(address, 'relay.session.v1.SessionService')).toBe(true);

    await server.shutdown();

    expect(await checkHealth(address, 'relay.session.v1.SessionService')).toBe(false);
    expect(await checkHealth(address, LIVENESS_SERVICE)).toBe(false);
    const client = createClient(SessionServiceClient, address, gateway);
    const error = await rejection(callUnary(client, 'createUser', { name: 'late' }, { deadlineMs: 5000 }));
    client.close();
    expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', kind: 'unavailable' });
  });

  it('a call that waits for ready reaches a service that comes up after a call found it down; one that does not fails at once', async () => {
    const port = await freePort();
    const client = createClient(SessionServiceClient, `127.0.0.1:${port}`, gateway);
    // Nothing listens yet: the channel fails its connection and waits out its backoff.
    expect(await rejection(callUnary(client, 'createUser', { name: 'early' }, { deadlineMs: 5000 }))).toMatchObject({ kind: 'unavailable' });
    const waiting = callUnary(client, 'createUser', { name: 'patient' }, { deadlineMs: 10_000, waitForReady: true });
    const server = await startGrpcServer({
      port,
      host: '127.0.0.1',
      logger,
      auth: serverAuth,
      services: [{ definition: SessionServiceService, implementation: sessionService, callers: sessionCallers }],
    });
    expect(await waiting).toMatchObject({ userId: 'user-patient' });
    client.close();
    await server.shutdown();
  });

  it('while draining reports NOT_SERVING and still answers calls', async () => {
    const server = await startGrpcServer({
      port: 0,
      host: '127.0.0.1',
      logger,
      auth: serverAuth,
      services: [{ definition: SessionServiceService, implementation: sessionService, callers: sessionCallers }],
    });
    const address = `127.0.0.1:${server.port}`;
    server.drain();
    expect(await checkHealth(address)).toBe(false);
    expect(await checkHealth(address, 'relay.session.v1.SessionService')).toBe(false);
    // Liveness stays on while the replica drains (the kubelet must not kill it for draining), and goes only at shutdown.
    expect(await checkHealth(address, LIVENESS_SERVICE)).toBe(true);
    const client = createClient(SessionServiceClient, address, gateway);
    expect(await callUnary(client, 'createUser', { name: 'draining' })).toMatchObject({ userId: 'user-draining' });
    client.close();
    await server.shutdown();
  });

  it('cancels calls still running when the shutdown timeout passes', async () => {
    const server = await startGrpcServer({
      port: 0,
      host: '127.0.0.1',
      logger,
      shutdownTimeoutMs: 100,
      auth: serverAuth,
      services: [{ definition: SessionServiceService, implementation: sessionService, callers: sessionCallers }],
    });
    const client = createClient(SessionServiceClient, `127.0.0.1:${server.port}`, gateway);
    const pending = rejection(callUnary(client, 'createUser', { name: 'slow' }));
    await expect.poll(() => logged.some((entry) => entry.msg === 'grpc server listening')).toBe(true);

    await server.shutdown();

    expect((await pending).kind).toMatch(/^(unavailable|aborted)$/);
    client.close();
  });
});
