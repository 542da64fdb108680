// RED per gRPC method, measured where every relay service serves its calls (serveUnary, serveStream) and read back
// from a real MeterProvider.
import { SessionServiceClient, SessionServiceService, type SessionServiceServer } from '@relay/proto/relay/session/v1/session_service';
import { AppError } from '@relay/errors';
import { createLogger } from '@relay/telemetry';
import { recordMetrics, type MetricRecorder } from '@relay/telemetry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callStream, callUnary, createClient, serveStream, serveUnary, startGrpcServer, type GrpcServer } from '../src/index.ts';
import { callersFor, tokenAuth } from './fixtures/credentials.ts';
import { WatchServiceClient, WatchServiceService, type WatchServiceServer } from './fixtures/watch-service.ts';

const logger = createLogger({ name: 'rpc-metrics-test', level: 'silent' });
let recorder: MetricRecorder;
let server: GrpcServer;
let sessions: SessionServiceClient;
let watches: WatchServiceClient;

beforeAll(async () => {
  recorder = recordMetrics();
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
            if (name === 'taken') throw new AppError('REMOTE_RELAY_NAME_TAKEN', 'already_exists', 'Taken.');
            return { userId: `user-${name}`, token: 't' };
          },
        }),
        callers: callersFor(SessionServiceService, 'gateway'),
      },
      {
        definition: WatchServiceService,
        implementation: serveStream<WatchServiceServer>(logger, {
          watch: async function* ({ count }) {
            for (let n = 1; n <= count; n += 1) yield { n };
          },
        }),
        callers: callersFor(WatchServiceService, 'gateway'),
      },
    ],
  });
  sessions = createClient(SessionServiceClient, `127.0.0.1:${server.port}`, tokenAuth('gateway'));
  watches = createClient(WatchServiceClient, `127.0.0.1:${server.port}`, tokenAuth('gateway'));
});

afterAll(async () => {
  sessions.close();
  watches.close();
  await server.shutdown();
  await recorder.stop();
});

describe('rpc.server.call.duration', () => {
  it('counts each served call in seconds by method, status and error code', async () => {
    await callUnary(sessions, 'createUser', { name: 'ada' });
    await callUnary(sessions, 'createUser', { name: 'bob' });
    await callUnary(sessions, 'createUser', { name: 'taken' }).catch(() => undefined);
    for await (const _ of callStream(watches, 'watch', { count: 2 })) void _;

    const points = (await recorder.collect()).filter((point) => point.name === 'rpc.server.call.duration');
    expect(points.every((point) => point.unit === 's')).toBe(true);
    const of = (method: string, code: string) =>
      points.find((point) => point.attributes['rpc.method'] === method && point.attributes['rpc.response.status_code'] === code);
    expect(of('relay.session.v1.SessionService/CreateUser', 'OK')).toMatchObject({ count: 2, attributes: { 'rpc.system.name': 'grpc' } });
    expect(of('relay.session.v1.SessionService/CreateUser', 'ALREADY_EXISTS')).toMatchObject({
      count: 1,
      attributes: { 'relay.error.code': 'REMOTE_RELAY_NAME_TAKEN' },
    });
    expect(of('relay.test.v1.WatchService/Watch', 'OK')?.count).toBe(1);
  });
});
