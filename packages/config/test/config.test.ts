import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ConfigError,
  baseEnv,
  databaseUrl,
  grpcAddress,
  natsClientOptions,
  natsEnv,
  parseEnv,
  port,
  requireNatsTls,
  streamEnv,
  streamReplicas,
  streamSettings,
} from '../src/index.ts';

const schema = z.object({ ...baseEnv, DATABASE_URL: databaseUrl, GRPC_PORT: port(50051), SESSION_GRPC_ADDR: grpcAddress('session:50051') });

describe('parseEnv', () => {
  it('applies defaults and parses the clock', () => {
    const config = parseEnv(schema, {
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/x',
      SESSION_GRPC_ADDR: 'localhost:1',
      RELAY_CLOCK: '2026-10-24T22:00:00Z@60x',
    });
    expect(config.GRPC_PORT).toBe(50051);
    expect(config.NATS_URL).toBe('nats://127.0.0.1:4222');
    expect(config.RELAY_CLOCK).toEqual({ kind: 'virtual', start: new Date('2026-10-24T22:00:00Z'), rate: 60 });
  });

  it('names every bad variable at once', () => {
    let error: unknown;
    try {
      parseEnv(schema, { DATABASE_URL: 'mysql://x', GRPC_PORT: 'eighty', RELAY_CLOCK: 'soon', LOG_LEVEL: 'loud' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const variables = (error as ConfigError).problems.map((p) => p.variable).sort();
    expect(variables).toEqual(['DATABASE_URL', 'GRPC_PORT', 'LOG_LEVEL', 'RELAY_CLOCK', 'SESSION_GRPC_ADDR']);
    expect((error as ConfigError).message).toContain('DATABASE_URL: must be a postgres: or postgresql: URL');
  });
});

describe("streamEnv (a stream's copies and limits)", () => {
  const stream = z.object(streamEnv);

  it('keeps a message 7 days and at most 1 GiB per stream unless told otherwise', () => {
    expect(streamSettings(parseEnv(stream, {}))).toEqual({ replicas: 1, maxAgeMs: 168 * 3_600_000, maxBytes: 1024 ** 3 });
    expect(streamSettings(parseEnv(stream, { NATS_STREAM_REPLICAS: '3', NATS_STREAM_MAX_AGE_HOURS: '72', NATS_STREAM_MAX_BYTES: '5368709120' }))).toEqual({
      replicas: 3,
      maxAgeMs: 72 * 3_600_000,
      maxBytes: 5 * 1024 ** 3,
    });
  });

  it('refuses limits that are no limits', () => {
    let error: unknown;
    try {
      parseEnv(stream, { NATS_STREAM_MAX_AGE_HOURS: '0', NATS_STREAM_MAX_BYTES: '1000' });
    } catch (caught) {
      error = caught;
    }
    expect((error as ConfigError).problems.map((p) => p.variable).sort()).toEqual(['NATS_STREAM_MAX_AGE_HOURS', 'NATS_STREAM_MAX_BYTES']);
  });
});

describe('streamReplicas (NATS_STREAM_REPLICAS)', () => {
  const replicas = z.object({ NATS_STREAM_REPLICAS: streamReplicas });

  it('is 1 unless set, and takes 1 to 5', () => {
    expect(parseEnv(replicas, {}).NATS_STREAM_REPLICAS).toBe(1);
    expect(parseEnv(replicas, { NATS_STREAM_REPLICAS: '3' }).NATS_STREAM_REPLICAS).toBe(3);
  });

  it.each(['0', '6', '2.5', 'three'])('refuses %s, naming the variable', (value) => {
    expect(() => parseEnv(replicas, { NATS_STREAM_REPLICAS: value })).toThrow(/NATS_STREAM_REPLICAS: must be a whole number from 1 to 5/);
  });
});

describe('NATS over TLS (NATS_TLS_CA, NATS_TLS_CERT, NATS_TLS_KEY)', () => {
  const nats = z.object({ ...baseEnv, ...natsEnv }).superRefine(requireNatsTls);
  const files = { NATS_TLS_CA: '/etc/relay/tls/ca.crt', NATS_TLS_CERT: '/etc/relay/tls/tls.crt', NATS_TLS_KEY: '/etc/relay/tls/tls.key' };

  it('connects without TLS unless NATS_TLS_CA is set; with it, the CA and the client certificate go to the client', () => {
    expect(natsClientOptions(parseEnv(nats, { NATS_USER: 'session', NATS_PASSWORD: 'p' }))).toEqual({
      url: 'nats://127.0.0.1:4222',
      user: 'session',
      password: 'p',
      tls: undefined,
    });
    expect(natsClientOptions(parseEnv(nats, { NATS_URL: 'nats://nats:4222', ...files })).tls).toEqual({
      caFile: files.NATS_TLS_CA,
      certFile: files.NATS_TLS_CERT,
      keyFile: files.NATS_TLS_KEY,
    });
    expect(natsClientOptions(parseEnv(nats, { NATS_TLS_CA: files.NATS_TLS_CA })).tls).toEqual({ caFile: files.NATS_TLS_CA });
  });

  it('refuses a certificate without its key or the CA, and a relative path, naming each variable', () => {
    expect(() => parseEnv(nats, { NATS_TLS_CERT: files.NATS_TLS_CERT })).toThrow(
      /NATS_TLS_CA: required with NATS_TLS_CERT[^]*NATS_TLS_KEY: required with NATS_TLS_CERT/,
    );
    expect(() => parseEnv(nats, { ...files, NATS_TLS_KEY: 'tls.key' })).toThrow(/NATS_TLS_KEY: must be an absolute file path/);
  });
});

describe('grpcAddress', () => {
  const address = z.object({ SESSION_GRPC_ADDR: grpcAddress('session:50051') });

  it('takes host:port, and the ipv4 target listing replicas that `relay up --replicas` gives', () => {
    for (const value of [
      'session:50051',
      '127.0.0.1:50051',
      'session.relay.svc.cluster.local:50051',
      'ipv4:127.0.0.1:50051,127.0.0.1:50151',
      'ipv4:127.0.0.1:50051',
    ]) {
      expect(parseEnv(address, { SESSION_GRPC_ADDR: value }).SESSION_GRPC_ADDR).toBe(value);
    }
  });

  it.each(['session', 'http://session:50051', 'ipv4:session:50051', 'ipv4:127.0.0.1:50051,', 'a:1;b:2'])('refuses %s', (value) => {
    expect(() => parseEnv(address, { SESSION_GRPC_ADDR: value })).toThrow(ConfigError);
  });
});
