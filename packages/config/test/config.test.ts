import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, baseEnv, databaseUrl, grpcAddress, parseEnv, port, streamReplicas } from '../src/index.ts';

const schema = z.object({ ...baseEnv, DATABASE_URL: databaseUrl, GRPC_PORT: port(50051), SESSION_GRPC_ADDR: grpcAddress('session:50051') });

describe('parseEnv', () => {
  it('applies defaults and parses the clock', () => {
    const config = parseEnv(schema, { DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/x', SESSION_GRPC_ADDR: 'localhost:1', RELAY_CLOCK: '2026-10-24T22:00:00Z@60x' });
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
