import { describe, expect, it } from 'vitest';
import { ConfigError } from '@relay/config';
import { childProcessEnv, commandEnv, loadConfig, openAIPrices } from '../src/config.ts';

/** A service starts only with its gRPC credentials (relay up makes them); the tests give a valid set. */
const CREDENTIALS = { RELAY_SERVICE_TOKEN: 't'.repeat(43), RELAY_SERVICE_KEYS: `gateway:${'0'.repeat(64)}` };

const DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/relay_session';

describe('loadConfig', () => {
  it('defaults the settings and the port', () => {
    const config = loadConfig({ ...CREDENTIALS, DATABASE_URL });
    expect(config).toMatchObject({ GRPC_PORT: 50051, RELAY_AGENT_SESSIONS: 'off', RELAY_MAX_WAIT_SECONDS: 600, RELAY_MAX_TURN_MINUTES: 60 });
  });

  it('names every bad variable', () => {
    let error: unknown;
    try {
      loadConfig({ ...CREDENTIALS, RELAY_AGENT_SESSIONS: 'yes', RELAY_MAX_WAIT_SECONDS: '60', RELAY_MAX_TURN_MINUTES: '0' });
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
      ...CREDENTIALS,
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
    expect(loadConfig({ ...CREDENTIALS, DATABASE_URL })).toMatchObject({
      RELAY_OPENAI_ENDPOINTS: [],
      RELAY_USAGE_ALLOWANCES: {},
      RELAY_DEEPSEEK_BASE_URL: 'https://api.deepseek.com/v1',
    });
  });

  it.each([
    ['not JSON', '[{id:'],
    ['a reserved id', JSON.stringify([{ id: 'claude', baseUrl: 'http://127.0.0.1:1/v1' }])],
    [
      'an id twice',
      JSON.stringify([
        { id: 'grok', baseUrl: 'http://127.0.0.1:1/v1' },
        { id: 'grok', baseUrl: 'http://127.0.0.1:2/v1' },
      ]),
    ],
    ['no base URL', JSON.stringify([{ id: 'grok' }])],
    ['an unknown field', JSON.stringify([{ id: 'grok', baseUrl: 'http://127.0.0.1:1/v1', key: 'x' }])],
  ])('refuses RELAY_OPENAI_ENDPOINTS with %s, naming the variable', (_, value) => {
    let error: unknown;
    try {
      loadConfig({ ...CREDENTIALS, DATABASE_URL, RELAY_OPENAI_ENDPOINTS: value });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems.every((p) => p.variable.startsWith('RELAY_OPENAI_ENDPOINTS'))).toBe(true);
  });

  it('reads per-model prices of OpenAI-compatible endpoints: an extra endpoint’s "prices", RELAY_OPENAI_PRICES, RELAY_DEEPSEEK_PRICES', () => {
    const config = loadConfig({
      ...CREDENTIALS,
      DATABASE_URL,
      RELAY_OPENAI_ENDPOINTS: JSON.stringify([
        {
          id: 'grok',
          baseUrl: 'https://api.x.ai/v1',
          models: ['grok-4'],
          prices: { 'grok-4': { inputUsdPerMTok: 3, outputUsdPerMTok: 15, cachedInputUsdPerMTok: 0.75 } },
        },
        { id: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1' },
      ]),
      RELAY_OPENAI_PRICES: JSON.stringify({ 'gpt-5.4-mini': { inputUsdPerMTok: 0.25, outputUsdPerMTok: 2 } }),
      RELAY_DEEPSEEK_PRICES: JSON.stringify({ 'deepseek-chat': { inputUsdPerMTok: 0.27, outputUsdPerMTok: 1.1 } }),
      RELAY_USAGE_ALLOWANCES: JSON.stringify({ grok: { monthlyUsd: 20 }, deepseek: { monthlyUsd: 5 }, ollama: { monthlyTokens: 1000 } }),
    });
    expect(openAIPrices(config)).toEqual({
      openai: { 'gpt-5.4-mini': { inputUsdPerMTok: 0.25, outputUsdPerMTok: 2 } },
      deepseek: { 'deepseek-chat': { inputUsdPerMTok: 0.27, outputUsdPerMTok: 1.1 } },
      grok: { 'grok-4': { inputUsdPerMTok: 3, outputUsdPerMTok: 15, cachedInputUsdPerMTok: 0.75 } },
      ollama: undefined,
    });
    expect(openAIPrices(loadConfig({ ...CREDENTIALS, DATABASE_URL }))).toEqual({ openai: undefined, deepseek: undefined });
  });

  it.each([
    [
      'a negative price',
      'RELAY_OPENAI_PRICES',
      { m: { inputUsdPerMTok: -1, outputUsdPerMTok: 1 } },
      'RELAY_OPENAI_PRICES.m.inputUsdPerMTok: must not be negative',
    ],
    [
      'a price as text',
      'RELAY_DEEPSEEK_PRICES',
      { m: { inputUsdPerMTok: '0.27', outputUsdPerMTok: 1 } },
      'must be a number of US dollars per million tokens, for example 0.27',
    ],
    [
      'a missing output price',
      'RELAY_OPENAI_PRICES',
      { m: { inputUsdPerMTok: 1 } },
      'RELAY_OPENAI_PRICES.m.outputUsdPerMTok: must be a number of US dollars per million tokens',
    ],
    ['a misspelt field', 'RELAY_OPENAI_PRICES', { m: { inputUsdPerMTok: 1, outputUsdPerMTok: 1, inputPerMTok: 1 } }, 'inputPerMTok'],
    ['an absurd price', 'RELAY_OPENAI_PRICES', { m: { inputUsdPerMTok: 1e6, outputUsdPerMTok: 1 } }, 'must be at most 10000'],
  ])('refuses %s at startup, saying where and why', (_, variable, prices, message) => {
    expect(() => loadConfig({ ...CREDENTIALS, DATABASE_URL, [variable]: JSON.stringify(prices) })).toThrow(message);
  });

  it('refuses an endpoint’s price for a model it does not list, and a cost allowance on a provider without prices', () => {
    let error: unknown;
    try {
      loadConfig({
        ...CREDENTIALS,
        DATABASE_URL,
        RELAY_OPENAI_ENDPOINTS: JSON.stringify([
          { id: 'grok', baseUrl: 'https://api.x.ai/v1', models: ['grok-4'], prices: { 'grok-3': { inputUsdPerMTok: 3, outputUsdPerMTok: 15 } } },
          { id: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1' },
        ]),
        RELAY_USAGE_ALLOWANCES: JSON.stringify({ ollama: { monthlyUsd: 5 }, deepseek: { monthlyUsd: 5 }, 'claude-api': { monthlyUsd: 5 } }),
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      { variable: 'RELAY_OPENAI_ENDPOINTS.0.prices', message: "prices model grok-3, which is not in the endpoint's models (grok-4)" },
      {
        variable: 'RELAY_USAGE_ALLOWANCES.ollama.monthlyUsd',
        message:
          'ollama reports tokens only, so its cost is not tracked without prices ("prices" of its RELAY_OPENAI_ENDPOINTS entry); set its prices or use monthlyTokens',
      },
      {
        variable: 'RELAY_USAGE_ALLOWANCES.deepseek.monthlyUsd',
        message: 'deepseek reports tokens only, so its cost is not tracked without prices (RELAY_DEEPSEEK_PRICES); set its prices or use monthlyTokens',
      },
    ]);
  });

  it('refuses a negative cap and an allowance that is not a number', () => {
    let error: unknown;
    try {
      loadConfig({ ...CREDENTIALS, DATABASE_URL, RELAY_CLAUDE_API_MONTHLY_CAP_USD: '-1', RELAY_USAGE_ALLOWANCES: '{"openai":{"monthlyTokens":"lots"}}' });
    } catch (caught) {
      error = caught;
    }
    expect((error as ConfigError).problems.map((p) => p.variable.split('.')[0]).sort()).toEqual(['RELAY_CLAUDE_API_MONTHLY_CAP_USD', 'RELAY_USAGE_ALLOWANCES']);
  });

  it('takes the command runner only over mutual TLS: never with the service token', () => {
    expect(loadConfig({ ...CREDENTIALS, DATABASE_URL }).RELAY_COMMAND_RUNNER_ADDR).toBeUndefined();
    const tls = { GRPC_TLS_CA: '/etc/relay/grpc-tls/ca.crt', GRPC_TLS_CERT: '/etc/relay/grpc-tls/tls.crt', GRPC_TLS_KEY: '/etc/relay/grpc-tls/tls.key' };
    expect(loadConfig({ ...tls, DATABASE_URL, GRPC_HOST: '0.0.0.0', RELAY_COMMAND_RUNNER_ADDR: 'runner:50056' }).RELAY_COMMAND_RUNNER_ADDR).toBe(
      'runner:50056',
    );
    let error: unknown;
    try {
      loadConfig({ ...CREDENTIALS, DATABASE_URL, RELAY_COMMAND_RUNNER_ADDR: 'runner:50056' });
    } catch (caught) {
      error = caught;
    }
    expect((error as ConfigError).problems.map((p) => p.variable)).toEqual(['RELAY_COMMAND_RUNNER_ADDR']);
  });

  it("refuses the relay's state folder (.relay) as an allowed root or the default folder", () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig({ ...CREDENTIALS, DATABASE_URL, ...env });
      } catch (error) {
        return (error as ConfigError).problems.map((p) => p.variable);
      }
      return [];
    };
    expect(problems({ RELAY_ALLOWED_ROOTS: '/home/dev,/home/dev/relay/.relay', RELAY_DEFAULT_CWD: '/home/dev' })).toEqual(['RELAY_ALLOWED_ROOTS.1']);
    expect(problems({ RELAY_ALLOWED_ROOTS: '/home/dev', RELAY_DEFAULT_CWD: '/home/dev/relay/.relay/pg' })).toEqual(['RELAY_DEFAULT_CWD']);
  });
});

describe('the environment of commands and agents', () => {
  const service = {
    PATH: '/usr/bin',
    HOME: '/home/relay',
    LANG: 'C.UTF-8',
    DATABASE_URL: 'postgresql://relay:secret@db/relay_session',
    NATS_URL: 'nats://bus:4222',
    NATS_CREDS: '/secrets/bus.creds',
    CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat-secret',
    ANTHROPIC_API_KEY: 'sk-ant-api-secret',
    RELAY_OPENAI_API_KEY: 'sk-secret',
    HTTPS_PROXY: 'http://proxy:3128',
    ANTHROPIC_BASE_URL: 'http://127.0.0.1:9/',
  };

  it('a command gets only the allowlist: never the database, the bus, a credential or the proxies', () => {
    expect(commandEnv(service)).toEqual({ PATH: '/usr/bin', HOME: '/home/relay', LANG: 'C.UTF-8' });
  });

  it('an agent process gets the allowlist and how it reaches its API, and no credential (its provider adds its own)', () => {
    expect(childProcessEnv(service)).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/relay',
      LANG: 'C.UTF-8',
      HTTPS_PROXY: 'http://proxy:3128',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9/',
    });
  });
});
