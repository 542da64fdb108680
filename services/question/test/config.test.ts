import { describe, expect, it } from 'vitest';
import { ConfigError } from '@relay/config';
import { loadConfig } from '../src/config.ts';

/** A service starts only with its gRPC credentials (relay up makes them); the tests give a valid set. */
const CREDENTIALS = { RELAY_SERVICE_TOKEN: 't'.repeat(43), RELAY_SERVICE_KEYS: `gateway:${'0'.repeat(64)}` };

const DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/relay_question';

describe('loadConfig', () => {
  it('defaults the port, the bus, the log level and the progress interval', () => {
    expect(loadConfig({ ...CREDENTIALS, DATABASE_URL })).toMatchObject({
      DATABASE_URL,
      GRPC_PORT: 50054,
      NATS_URL: 'nats://127.0.0.1:4222',
      LOG_LEVEL: 'info',
      CARD_PROGRESS_INTERVAL_MS: 5_000,
    });
  });

  it('refuses a bad environment, naming every bad variable', () => {
    let error: unknown;
    try {
      loadConfig({
        ...CREDENTIALS,
        DATABASE_URL: 'mysql://127.0.0.1/x',
        GRPC_PORT: 'fifty',
        NATS_URL: 'http://127.0.0.1:4222',
        LOG_LEVEL: 'loud',
        CARD_PROGRESS_INTERVAL_MS: '10',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems.map((problem) => problem.variable).sort()).toEqual([
      'CARD_PROGRESS_INTERVAL_MS',
      'DATABASE_URL',
      'GRPC_PORT',
      'LOG_LEVEL',
      'NATS_URL',
    ]);
  });

  it('requires DATABASE_URL', () => {
    expect(() => loadConfig({ ...CREDENTIALS })).toThrow(ConfigError);
  });
});
