/**
 * The bus over TLS, as on Kubernetes: a real nats-server with a certificate from the relay's CA that verifies
 * its clients' certificates too. A service connects with NATS_TLS_CA/CERT/KEY as its config reads them; a
 * client without the CA, without its own certificate or with one from another CA gets no connection, and a
 * client set up for TLS refuses a server without it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import { natsClientOptions, type NatsClientOptions } from '@relay/config';
import { createLogger } from '@relay/telemetry';
import { createTestCa, startNats, type CertificateFiles, type NatsServer, type TestCa } from '@relay/testing';
import { connectBus, ensureStream } from '@relay/bus';

const logger = createLogger({ name: 'tls-test', level: 'silent' });
let ca: TestCa;
let otherCa: TestCa;
let server: CertificateFiles;
let session: CertificateFiles;
let nats: NatsServer;
let plaintext: NatsServer;

/** The server by name, as pods reach `nats` (the client checks the name; by IP it would check "localhost"). */
const byName = (server: NatsServer) => server.url.replace('127.0.0.1', 'localhost');

/** The environment a session pod gets: its user and its own certificate (the same one it uses on gRPC). */
const sessionEnv = (files: CertificateFiles, url = byName(nats)) => ({
  ...nats.env('session'),
  NATS_URL: url,
  NATS_TLS_CA: files.ca,
  NATS_TLS_CERT: files.cert,
  NATS_TLS_KEY: files.key,
});

beforeAll(async () => {
  ca = createTestCa();
  otherCa = createTestCa();
  server = ca.issue('nats', ['nats', 'localhost']);
  session = ca.issue('session', ['session']);
  nats = await startNats({ tls: server });
  plaintext = await startNats();
});

afterAll(async () => {
  await nats?.stop();
  await plaintext?.stop();
  ca?.remove();
  otherCa?.remove();
});

describe('the bus over TLS', () => {
  it('connects a service with its certificate, checking the server against the CA, and JetStream works over it', async () => {
    const bus = await connectBus({ ...natsClientOptions(sessionEnv(session)), name: 'session', logger });
    try {
      expect(bus.nc.info?.tls_required).toBe(true);
      await ensureStream(bus, { name: 'SESSION_EVENTS', subjects: ['relay.session.v1.>'] });
      const ack = await bus.js.publish('relay.session.v1.archived', JSON.stringify({ sessionId: 's1' }));
      expect(ack.stream).toBe('SESSION_EVENTS');
    } finally {
      await bus.close();
    }
  });

  it("refuses a client that does not trust the server: no CA (the system CAs do not know the relay's) or another CA", async () => {
    const untrusted = /self-signed certificate|unable to verify/i;
    await expect(connect({ servers: byName(nats), ...nats.credentials('session'), reconnect: false })).rejects.toThrow(untrusted);
    const stranger = otherCa.issue('session', ['session']);
    await expect(connectBus({ ...natsClientOptions(sessionEnv({ ...session, ca: stranger.ca })), name: 'session', logger })).rejects.toThrow(untrusted);
  });

  it("refuses a client without a certificate, or with one the relay's CA did not sign, even with the right password", async () => {
    // One try (connectBus would keep trying until its connect timeout): the server ends the handshake, and the
    // same try with the certificate gets in.
    const once = ({ url, user, password, tls }: NatsClientOptions) => connect({ servers: url, user, pass: password, tls, reconnect: false });
    const withoutCertificate = natsClientOptions({ ...nats.env('session'), NATS_URL: byName(nats), NATS_TLS_CA: session.ca });
    expect(withoutCertificate.tls).toEqual({ caFile: session.ca });
    await expect(once(withoutCertificate)).rejects.toThrow(/bad certificate|certificate required|ECONNRESET/);
    const stranger = otherCa.issue('intruder', ['session']);
    await expect(once(natsClientOptions(sessionEnv({ ...stranger, ca: session.ca })))).rejects.toThrow(/bad certificate|unknown ca|ECONNRESET/);
    await (await once(natsClientOptions(sessionEnv(session)))).close();
  });

  it('a client set up for TLS never falls back to plaintext: a server without TLS is refused', async () => {
    await expect(connectBus({ ...natsClientOptions(sessionEnv(session, byName(plaintext))), name: 'session', logger })).rejects.toThrow(
      /does not support 'tls'/,
    );
  });
});
