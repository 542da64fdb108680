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

  it('reads more OpenAI-compatible endpoints, each its own provider id, and the usage allowances', () => {
    const config = loadConfig({
      DATABASE_URL,
      RELAY_OPENAI_ENDPOINTS: JSON.stringify([
        { id: 'grok', baseUrl: 'https://api.x.ai/v1', apiKey: 'xai-key', models: ['grok-4'] },
        { id: 'ollama', name: 'Ollama', baseUrl: 'http://127.0.0.1:11434/v1' },
      ]),
      RELAY_CLAUDE_API_MONTHLY_CAP_USD: '50',
      RELAY_USAGE_ALLOWANCES: JSON.stringify({ openai: { monthlyTokens: 2000000 } }),
    });
    expect(config.RELAY_OPENAI_ENDPOINTS).toEqual([
      { id: 'grok', baseUrl: 'https://api.x.ai/v1', apiKey: 'xai-key', models: ['grok-4'] },
      { id: 'ollama', name: 'Ollama', baseUrl: 'http://127.0.0.1:11434/v1' },
    ]);
    expect(config).toMatchObject({ RELAY_CLAUDE_API_MONTHLY_CAP_USD: 50, RELAY_USAGE_ALLOWANCES: { openai: { monthlyTokens: 2000000 } } });
    expect(loadConfig({ DATABASE_URL })).toMatchObject({ RELAY_OPENAI_ENDPOINTS: [], RELAY_USAGE_ALLOWANCES: {}, RELAY_DEEPSEEK_BASE_URL: 'https://api.deepseek.com/v1' });
  });

  it.each([
    ['not JSON', '[{id:'],
    ['a reserved id', JSON.stringify([{ id: 'claude', baseUrl: 'http://127.0.0.1:1/v1' }])],
    ['an id twice', JSON.stringify([{ id: 'grok', baseUrl: 'http://127.0.0.1:1/v1' }, { id: 'grok', baseUrl: 'http://127.0.0.1:2/v1' }])],
    ['no base URL', JSON.stringify([{ id: 'grok' }])],
    ['an unknown field', JSON.stringify([{ id: 'grok', baseUrl: 'http://127.0.0.1:1/v1', key: 'x' }])],
  ])('refuses RELAY_OPENAI_ENDPOINTS with %s, naming the variable', (_, value) => {
    let error: unknown;
    try {
      loadConfig({ DATABASE_URL, RELAY_OPENAI_ENDPOINTS: value });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems.every((p) => p.variable.startsWith('RELAY_OPENAI_ENDPOINTS'))).toBe(true);
  });

  it('refuses a negative cap and an allowance that is not a number', () => {
    let error: unknown;
    try {
      loadConfig({ DATABASE_URL, RELAY_CLAUDE_API_MONTHLY_CAP_USD: '-1', RELAY_USAGE_ALLOWANCES: '{"openai":{"monthlyTokens":"lots"}}' });
    } catch (caught) {
      error = caught;
    }
    expect((error as ConfigError).problems.map((p) => p.variable.split('.')[0]).sort()).toEqual(['RELAY_CLAUDE_API_MONTHLY_CAP_USD', 'RELAY_USAGE_ALLOWANCES']);
  });
});
