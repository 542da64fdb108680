import { describe, expect, it } from 'vitest';
import { ConfigError } from '@relay/config';
import { loadConfig } from '../src/config.ts';

const DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/relay_session';

describe('loadConfig', () => {
  it('defaults the settings and the port', () => {
    const config = loadConfig({ DATABASE_URL });
    expect(config).toMatchObject({ GRPC_PORT: 50051, RELAY_AGENT_SESSIONS: 'off', RELAY_MAX_WAIT_SECONDS: 600, RELAY_MAX_TURN_MINUTES: 60 });
  });

  it('names every bad variable', () => {
    let error: unknown;
    try {
      loadConfig({ RELAY_AGENT_SESSIONS: 'yes', RELAY_MAX_WAIT_SECONDS: '60', RELAY_MAX_TURN_MINUTES: '0' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems.map((p) => p.variable).sort()).toEqual([
      'DATABASE_URL',
      'RELAY_AGENT_SESSIONS',
      'RELAY_MAX_TURN_MINUTES',
      'RELAY_MAX_WAIT_SECONDS',
    ]);
  });
});
