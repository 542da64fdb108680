import { describe, expect, it } from 'vitest';
import { ConfigError } from '@relay/config';
import { loadConfig } from '../src/config.ts';

const DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/relay_pairing';

describe('loadConfig', () => {
  it('defaults the port, the bus and the log level', () => {
    expect(loadConfig({ DATABASE_URL })).toMatchObject({
      DATABASE_URL,
      GRPC_PORT: 50055,
      NATS_URL: 'nats://127.0.0.1:4222',
      LOG_LEVEL: 'info',
    });
  });

  it('refuses a bad environment, naming every bad variable', () => {
    let error: unknown;
    try {
      loadConfig({ DATABASE_URL: 'mysql://127.0.0.1/x', GRPC_PORT: 'fifty', NATS_URL: 'http://127.0.0.1:4222', LOG_LEVEL: 'loud' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems.map((problem) => problem.variable).sort()).toEqual([
      'DATABASE_URL',
      'GRPC_PORT',
      'LOG_LEVEL',
      'NATS_URL',
    ]);
  });

  it('requires DATABASE_URL', () => {
    expect(() => loadConfig({})).toThrow(ConfigError);
  });
});
