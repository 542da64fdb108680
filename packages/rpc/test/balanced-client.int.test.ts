// Two replicas of one service behind one target, as a headless Service's DNS name gives a client in Kubernetes:
// one client, with the channel options every relay client uses, sends calls to both, and keeps answering when
// one of them shuts down (a rollout).
import { SessionServiceClient, SessionServiceService, type SessionServiceServer } from '@relay/proto/relay/session/v1/session_service';
import { createLogger } from '@relay/telemetry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callUnary, createClient, serveUnary, startGrpcServer, targetOf, type GrpcServer } from '../src/index.ts';
import { callersFor, tokenAuth } from './fixtures/credentials.ts';

const logger = createLogger({ name: 'rpc-balance-test', level: 'warn', destination: { write: () => undefined } });

/** A replica answers CreateUser with its own name, so each answer says which replica took the call. */
function replica(name: string): Promise<GrpcServer> {
  return startGrpcServer({
    port: 0,
    host: '127.0.0.1',
    logger,
    auth: tokenAuth('session'),
    shutdownTimeoutMs: 1000,
    services: [
      {
        definition: SessionServiceService,
        implementation: serveUnary<Pick<SessionServiceServer, 'createUser'>>(logger, { createUser: async () => ({ userId: name, token: '' }) }),
        callers: callersFor(SessionServiceService, 'gateway'),
      },
    ],
  });
}

describe('a client to a service with two replicas', () => {
  let first: GrpcServer;
  let second: GrpcServer;
  let client: SessionServiceClient;

  beforeAll(async () => {
    [first, second] = await Promise.all([replica('first'), replica('second')]);
    client = createClient(SessionServiceClient, `ipv4:127.0.0.1:${first.port},127.0.0.1:${second.port}`, tokenAuth('gateway'));
  });

  afterAll(async () => {
    client?.close();
    await Promise.all([first?.shutdown(), second?.shutdown()]);
  });

  const call = async () => (await callUnary<{ name: string }, { userId: string }>(client, 'createUser', { name: 'x' })).userId;

  it('sends its calls to both replicas', async () => {
    const answered: string[] = [];
    for (let n = 0; n < 20; n += 1) answered.push(await call());
    // round_robin takes turns among the connected replicas: both get a good share once both are connected.
    expect(answered.filter((name) => name === 'first').length).toBeGreaterThanOrEqual(5);
    expect(answered.filter((name) => name === 'second').length).toBeGreaterThanOrEqual(5);
  });

  it('keeps answering through the other replica when one shuts down', async () => {
    await first.shutdown();
    const answered: string[] = [];
    for (let n = 0; n < 10; n += 1) answered.push(await call());
    expect(answered).toEqual(Array(10).fill('second'));
  });
});

describe('targetOf', () => {
  it('resolves a bare host:port through DNS and leaves a named resolver alone', () => {
    expect(targetOf('session:50051')).toBe('dns:///session:50051');
    expect(targetOf('127.0.0.1:4000')).toBe('dns:///127.0.0.1:4000');
    expect(targetOf('ipv4:127.0.0.1:1,127.0.0.1:2')).toBe('ipv4:127.0.0.1:1,127.0.0.1:2');
    expect(targetOf('dns:///relay-session.relay.svc:50051')).toBe('dns:///relay-session.relay.svc:50051');
  });
});
