import { describe, expect, it } from 'vitest';
import { ConfigError } from '@relay/config';
import { loadConfig } from '../src/config.ts';

/** A service starts only with its gRPC credentials (relay up makes them); the tests give a valid set. */
const CREDENTIALS = { RELAY_SERVICE_TOKEN: 't'.repeat(43), RELAY_SERVICE_KEYS: `gateway:${'0'.repeat(64)}` };

const DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/relay_subscription';

describe('loadConfig', () => {
  it('defaults the port, the bus and the log level', () => {
    expect(loadConfig({ ...CREDENTIALS, DATABASE_URL })).toMatchObject({
      DATABASE_URL,
      GRPC_PORT: 50052,
      NATS_URL: 'nats://127.0.0.1:4222',
      LOG_LEVEL: 'info',
    });
  });

  it('refuses a bad environment, naming every bad variable', () => {
    let error: unknown;
    try {
      loadConfig({ ...CREDENTIALS, DATABASE_URL: 'mysql://127.0.0.1/x', GRPC_PORT: 'fifty', NATS_URL: 'http://127.0.0.1:4222', LOG_LEVEL: 'loud' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems.map((problem) => problem.variable).sort()).toEqual(['DATABASE_URL', 'GRPC_PORT', 'LOG_LEVEL', 'NATS_URL']);
  });

  it('requires DATABASE_URL', () => {
    expect(() => loadConfig({ ...CREDENTIALS })).toThrow(ConfigError);
  });
});
