// Every call between services proves which service makes it, and each RPC names the services that may make it:
// with tokens (one machine) and with mutual TLS (Kubernetes), against a real grpc-js server.
import { readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { credentials, experimental, Metadata } from '@grpc/grpc-js';
import { SessionServiceClient, SessionServiceService, type SessionServiceServer } from '@relay/proto/relay/session/v1/session_service';
import { AppError } from '@relay/errors';
import { createLogger } from '@relay/telemetry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callUnary,
  checkHealth,
  createClient,
  grpcAuth,
  makeServiceCredentials,
  MAX_MESSAGE_BYTES,
  SERVICE_AUTH_METADATA_KEY,
  serveUnary,
  startGrpcServer,
  type Callers,
  type GrpcAuth,
  type GrpcServer,
} from '../src/index.ts';
// By path: @relay/testing depends on this package, so this package cannot list it.
import { createTestCa, type CertificateFiles, type TestCa } from '../../testing/src/test-ca.ts';
import { callersFor, tokenAuth, tokenOf } from './fixtures/credentials.ts';

const logger = createLogger({ name: 'caller-check-test', level: 'silent' });

const implementation = serveUnary<Pick<SessionServiceServer, 'createUser' | 'countAgentPrompt'>>(logger, {
  createUser: async ({ name }) => ({ userId: `user-${name}`, token: 'rly_u_x', role: 'admin' }),
  countAgentPrompt: async () => ({ sent: 1, allowed: 30, usedUp: false }),
});

/** As the session service has it: only the gateway creates users; the scheduler may count prompts too. */
const callers: Callers<typeof SessionServiceService> = {
  ...callersFor(SessionServiceService, 'gateway'),
  countAgentPrompt: ['gateway', 'scheduler'],
};

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

/** Certificates read from `files` only when release() is called, as from a slow disk; a provider as grpc-js's own. */
class HeldCertificates implements experimental.CertificateProvider {
  private readonly caListeners = new Set<experimental.CaCertificateUpdateListener>();
  private readonly identityListeners = new Set<experimental.IdentityCertificateUpdateListener>();
  private read?: { ca: experimental.CaCertificateUpdate; identity: experimental.IdentityCertificateUpdate };

  constructor(private readonly files: CertificateFiles) {}

  release(): void {
    this.read = {
      ca: { caCertificate: readFileSync(this.files.ca) },
      identity: { certificate: readFileSync(this.files.cert), privateKey: readFileSync(this.files.key) },
    };
    for (const listener of this.identityListeners) listener(this.read.identity);
    for (const listener of this.caListeners) listener(this.read.ca);
  }

  addCaCertificateListener(listener: experimental.CaCertificateUpdateListener): void {
    this.caListeners.add(listener);
    if (this.read) process.nextTick(listener, this.read.ca);
  }

  removeCaCertificateListener(listener: experimental.CaCertificateUpdateListener): void {
    this.caListeners.delete(listener);
  }

  addIdentityCertificateListener(listener: experimental.IdentityCertificateUpdateListener): void {
    this.identityListeners.add(listener);
    if (this.read) process.nextTick(listener, this.read.identity);
  }

  removeIdentityCertificateListener(listener: experimental.IdentityCertificateUpdateListener): void {
    this.identityListeners.delete(listener);
  }
}

function startSession(auth: GrpcAuth, extra: { host?: string; healthPort?: number } = {}): Promise<GrpcServer> {
  return startGrpcServer({ port: 0, logger, auth, ...extra, services: [{ definition: SessionServiceService, implementation, callers }] });
}

describe('service tokens (one machine)', () => {
  let server: GrpcServer;
  let address: string;
  const clients: SessionServiceClient[] = [];
  const client = (auth: GrpcAuth): SessionServiceClient => {
    const made = createClient(SessionServiceClient, address, auth);
    clients.push(made);
    return made;
  };

  beforeAll(async () => {
    server = await startSession(tokenAuth('session'));
    address = `127.0.0.1:${server.port}`;
  });
  afterAll(async () => {
    for (const made of clients) made.close();
    await server.shutdown();
  });

  it('answers a service the RPC lists', async () => {
    await expect(callUnary(client(tokenAuth('gateway')), 'createUser', { name: 'ada' })).resolves.toMatchObject({ userId: 'user-ada' });
    await expect(callUnary(client(tokenAuth('scheduler')), 'countAgentPrompt', { sessionId: 's', dryRun: false })).resolves.toMatchObject({ sent: 1 });
  });

  it('refuses a call without credentials as UNAUTHENTICATED', async () => {
    const anonymous = new SessionServiceClient(address, credentials.createInsecure());
    clients.push(anonymous);
    const error = await refusal(callUnary(anonymous, 'createUser', { name: 'mallory', role: 'admin' }));
    expect(error).toMatchObject({ code: 'REMOTE_RELAY_AUTH', kind: 'unauthenticated' });
    expect(error.message).toContain('/relay.session.v1.SessionService/CreateUser');
  });

  it("refuses another relay's token for the same service name as UNAUTHENTICATED", async () => {
    const other = makeServiceCredentials();
    const impostor = grpcAuth('gateway', { RELAY_SERVICE_TOKEN: other.tokens.gateway, RELAY_SERVICE_KEYS: {} });
    expect(await refusal(callUnary(client(impostor), 'createUser', { name: 'mallory' }))).toMatchObject({ code: 'REMOTE_RELAY_AUTH', kind: 'unauthenticated' });
  });

  it('refuses a name that is no service as UNAUTHENTICATED', async () => {
    const metadata = new Metadata();
    metadata.set(SERVICE_AUTH_METADATA_KEY, 'root:secret');
    const anonymous = new SessionServiceClient(address, credentials.createInsecure());
    clients.push(anonymous);
    expect(await refusal(callUnary(anonymous, 'createUser', { name: 'mallory' }, { metadata }))).toMatchObject({ kind: 'unauthenticated' });
  });

  it('refuses a known service the RPC does not list as PERMISSION_DENIED, saying who may', async () => {
    const error = await refusal(callUnary(client(tokenAuth('scheduler')), 'createUser', { name: 'ada', role: 'admin' }));
    expect(error).toMatchObject({ code: 'REMOTE_RELAY_FORBIDDEN', kind: 'permission_denied', details: { caller: 'scheduler', allowed: ['gateway'] } });
    expect(error.message).toContain('only by gateway');
  });

  it('keeps grpc.health.v1 open to callers without credentials', async () => {
    expect(await checkHealth(address, 'relay.session.v1.SessionService')).toBe(true);
  });

  it(`refuses a request larger than ${MAX_MESSAGE_BYTES} bytes as RESOURCE_EXHAUSTED, on the client and on the server`, async () => {
    const name = 'x'.repeat(MAX_MESSAGE_BYTES + 1);
    expect((await refusal(callUnary(client(tokenAuth('gateway')), 'createUser', { name }))).kind).toBe('resource_exhausted');
    // A client without the limit sends it; the server still refuses it.
    const unlimited = new SessionServiceClient(address, credentials.createInsecure());
    clients.push(unlimited);
    const metadata = new Metadata();
    metadata.set(SERVICE_AUTH_METADATA_KEY, `gateway:${tokenOf('gateway')}`);
    expect((await refusal(callUnary(unlimited, 'createUser', { name }, { metadata }))).kind).toBe('resource_exhausted');
  });
});

describe('where the server listens', () => {
  const external = Object.values(networkInterfaces())
    .flat()
    .find((entry) => entry !== undefined && entry.family === 'IPv4' && !entry.internal)?.address;

  it.skipIf(external === undefined)('binds 127.0.0.1 unless told otherwise, so other hosts cannot reach it', async () => {
    const server = await startSession(tokenAuth('session'));
    try {
      expect(await checkHealth(`127.0.0.1:${server.port}`)).toBe(true);
      expect(await checkHealth(`${external}:${server.port}`, '', 1000)).toBe(false);
    } finally {
      await server.shutdown();
    }
  });

  it('refuses a service whose callers table misses one of its RPCs', async () => {
    const { createUser: _left, ...partial } = callers;
    await expect(
      startGrpcServer({
        port: 0,
        logger,
        auth: tokenAuth('session'),
        services: [{ definition: SessionServiceService, implementation, callers: partial as typeof callers }],
      }),
    ).rejects.toThrow('relay.session.v1.SessionService lists no callers for createUser');
  });
});

describe('mutual TLS (Kubernetes)', () => {
  let ca: TestCa;
  let files: Record<'session' | 'gateway' | 'scheduler' | 'stranger', CertificateFiles>;
  let server: GrpcServer;
  let address: string;
  const clients: SessionServiceClient[] = [];
  const tls = (service: 'session' | 'gateway' | 'scheduler', certificate: CertificateFiles = files[service]): GrpcAuth =>
    grpcAuth(service, { GRPC_TLS_CA: certificate.ca, GRPC_TLS_CERT: certificate.cert, GRPC_TLS_KEY: certificate.key });
  const client = (auth: GrpcAuth): SessionServiceClient => {
    const made = createClient(SessionServiceClient, address, auth);
    clients.push(made);
    return made;
  };

  beforeAll(async () => {
    ca = createTestCa();
    const strangers = createTestCa();
    files = {
      session: ca.issue('session', ['session', 'session.relay.svc']),
      gateway: ca.issue('gateway', ['gateway', 'gateway.relay.svc']),
      scheduler: ca.issue('scheduler', ['scheduler']),
      // A certificate naming the gateway, from a CA the relay does not trust; it trusts the relay's CA itself.
      stranger: { ...strangers.issue('gateway', ['gateway']), ca: ca.issue('unused', ['unused']).ca },
    };
    server = await startSession(tls('session'), { healthPort: 0 });
    address = `127.0.0.1:${server.port}`;
  });
  afterAll(async () => {
    for (const made of clients) made.close();
    await server.shutdown();
    ca.remove();
  });

  it('answers a service whose certificate the CA signed and the RPC lists', async () => {
    await expect(callUnary(client(tls('gateway')), 'createUser', { name: 'ada' })).resolves.toMatchObject({ userId: 'user-ada' });
  });

  it('refuses a client without a certificate as UNAUTHENTICATED', async () => {
    const anonymous = new SessionServiceClient(address, credentials.createSsl(readFileSync(files.session.ca)));
    clients.push(anonymous);
    expect(await refusal(callUnary(anonymous, 'createUser', { name: 'mallory', role: 'admin' }))).toMatchObject({
      code: 'REMOTE_RELAY_AUTH',
      kind: 'unauthenticated',
    });
  });

  it('refuses a certificate from another CA as UNAUTHENTICATED', async () => {
    expect(await refusal(callUnary(client(tls('gateway', files.stranger)), 'createUser', { name: 'mallory' }))).toMatchObject({ kind: 'unauthenticated' });
  });

  it('refuses a service the RPC does not list as PERMISSION_DENIED', async () => {
    expect(await refusal(callUnary(client(tls('scheduler')), 'createUser', { name: 'ada' }))).toMatchObject({
      code: 'REMOTE_RELAY_FORBIDDEN',
      details: { caller: 'scheduler' },
    });
  });

  it('answers health over TLS, and in plaintext on the health port where nothing else is answered', async () => {
    expect(await checkHealth(address, 'relay.session.v1.SessionService', 2000, tls('gateway'))).toBe(true);
    expect(await checkHealth(address)).toBe(false);
    const probeAddress = `127.0.0.1:${server.healthPort}`;
    expect(await checkHealth(probeAddress, 'relay.session.v1.SessionService')).toBe(true);
    const plaintext = new SessionServiceClient(probeAddress, credentials.createInsecure());
    clients.push(plaintext);
    expect(await refusal(callUnary(plaintext, 'createUser', { name: 'mallory' }))).toMatchObject({ kind: 'unauthenticated' });
  });

  it('starts serving only once its certificates are read (until then it would drop every TLS connection)', async () => {
    const held = new HeldCertificates(files.session);
    let started = false;
    const starting = startSession({ kind: 'tls', service: 'session', certificates: held, files: files.session }).then((fresh) => {
      started = true;
      return fresh;
    });
    // Time enough for a server that did not wait to have bound and started.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(started).toBe(false);
    held.release();
    const fresh = await starting;
    try {
      const first = createClient(SessionServiceClient, `127.0.0.1:${fresh.port}`, tls('gateway'));
      clients.push(first);
      await expect(callUnary(first, 'createUser', { name: 'ada' })).resolves.toMatchObject({ userId: 'user-ada' });
    } finally {
      await fresh.shutdown();
    }
  });

  it('refuses to start when its certificate files cannot be read, and names them', async () => {
    const missing = { ...files.session, key: `${files.session.key}.missing` };
    await expect(startSession(tls('session', missing))).rejects.toThrow(
      `cannot read the TLS files GRPC_TLS_CA (${missing.ca}), GRPC_TLS_CERT (${missing.cert}) and GRPC_TLS_KEY (${missing.key})`,
    );
  });
});
