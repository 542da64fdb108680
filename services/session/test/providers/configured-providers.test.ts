import { describe, expect, it } from 'vitest';
import { createLogger } from '@relay/telemetry';
import { loadConfig } from '../../src/config.ts';
import { configuredProviders, discoverModelLists } from '../../src/adapters/providers/configured-providers.ts';
import type { ProviderPorts } from '../../src/adapters/providers/define-provider.ts';
import { ALWAYS_AVAILABLE, type Provider } from '../../src/app/turns/provider.ts';
import { BubblewrapSandbox } from '../../src/adapters/tasks/bubblewrap-sandbox.ts';

/** A service starts only with its gRPC credentials (relay up makes them); the tests give a valid set. */
const CREDENTIALS = { RELAY_SERVICE_TOKEN: 't'.repeat(43), RELAY_SERVICE_KEYS: `gateway:${'0'.repeat(64)}` };

const logger = createLogger({ name: 'configured-providers-test', level: 'silent' });
const DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/relay_session';

const ports: ProviderPorts = {
  cards: { raise: async () => 'card', awaitAnswer: async () => '', cancel: async () => undefined },
  tasks: {
    refusal: () => undefined,
    where: () => 'a sandbox',
    start: async () => ({ id: 't', status: 'running', description: '' }),
    track: async () => ({ id: 't' }),
    progress: async () => {},
    end: async () => {},
  },
  // Looks on this machine, as bubblewrap does (the checkout's node_modules hold every CLI).
  cli: {
    unavailable: undefined,
    machine: 'on this machine',
    locate: (programs) => new BubblewrapSandbox(undefined, 'not asked to run', []).locate(programs),
    where: (folder: string) => `test sandbox of ${folder}`,
    spawn: () => {
      throw new Error('not spawned in this test');
    },
  },
  history: async () => [],
  usage: { record: async () => undefined, totalsSince: async () => [], pause: async () => undefined, pausesAt: async () => [] },
  claudeStates: { get: async () => undefined, set: async () => undefined },
  codexThreads: { get: async () => undefined, set: async () => undefined, forget: async () => undefined },
  claudeQuery: () => {
    throw new Error('not called');
  },
  claudeTranscripts: async () => false,
  childEnv: {},
  commandEnv: {},
  logger,
};

describe('configuredProviders', () => {
  it('sets up script, one OpenAI-compatible provider per endpoint, both Claude billings and deepseek, in the list’s order', async () => {
    const config = loadConfig({
      ...CREDENTIALS,
      DATABASE_URL,
      RELAY_OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
      RELAY_OPENAI_ENDPOINTS: JSON.stringify([{ id: 'grok', baseUrl: 'https://api.x.ai/v1', models: ['grok-4'] }]),
      DEEPSEEK_API_KEY: 'dk',
      CLAUDE_CODE_OAUTH_TOKEN: 'oauth',
      RELAY_CLAUDE_EXECUTABLE: '/nonexistent/claude',
    });
    const providers = await configuredProviders(config, ports);
    expect(providers.map((p) => [p.id, p.availability().available, p.canSteer])).toEqual([
      ['script', true, false],
      ['openai', true, false],
      ['grok', true, false],
      ['claude', false, true],
      ['claude-api', false, true],
      ['claude-cloud', false, false],
      ['copilot', false, false],
      ['codex', false, false],
      ['deepseek', true, false],
    ]);
    const byId = Object.fromEntries(providers.map((p) => [p.id, p]));
    expect(byId['claude']!.availability().reason).toBe(
      "Claude Code's executable /nonexistent/claude (RELAY_CLAUDE_EXECUTABLE) is missing or not executable on this machine",
    );
    expect(byId['claude-api']!.availability().reason).toBe('no Anthropic API key configured (ANTHROPIC_API_KEY)');
    expect(byId['copilot']!.availability().reason).toBe(
      'GitHub Copilot token not configured (COPILOT_GITHUB_TOKEN), nor a bring-your-own-key endpoint (RELAY_COPILOT_BASE_URL)',
    );
    expect(byId['codex']!.availability().reason).toBe(
      'OpenAI API key for Codex not configured (OPENAI_API_KEY), nor an OpenAI-compatible endpoint (RELAY_CODEX_BASE_URL)',
    );
    expect(byId['claude-cloud']!.availability().reason).toBe(
      'Claude Cloud needs an Anthropic API key, a Managed Agents agent and a cloud environment: ANTHROPIC_API_KEY, RELAY_CLAUDE_CLOUD_AGENT_ID, RELAY_CLAUDE_CLOUD_ENVIRONMENT_ID not configured',
    );
  });

  it('sets up Claude Cloud: available with the API key, the agent and the environment; without one, unavailable with which', async () => {
    const cloud = async (env: Record<string, string>) =>
      (await configuredProviders(loadConfig({ ...CREDENTIALS, DATABASE_URL, ...env }), ports)).find((p) => p.id === 'claude-cloud')!;
    const all = { ANTHROPIC_API_KEY: 'sk-ant-api-test', RELAY_CLAUDE_CLOUD_AGENT_ID: 'agent_1', RELAY_CLAUDE_CLOUD_ENVIRONMENT_ID: 'env_1' };
    expect((await cloud(all)).availability()).toEqual({ available: true, reason: '' });
    expect((await cloud({ ...all, RELAY_CLAUDE_CLOUD_ENVIRONMENT_ID: ' ' })).availability()).toEqual({
      available: false,
      reason: 'Claude Cloud needs an Anthropic API key, a Managed Agents agent and a cloud environment: RELAY_CLAUDE_CLOUD_ENVIRONMENT_ID not configured',
    });
  });

  it('sets up Copilot: available with a credential and its runtime; without its CLI, unavailable with why', async () => {
    const copilot = async (env: Record<string, string>) =>
      (await configuredProviders(loadConfig({ ...CREDENTIALS, DATABASE_URL, ...env }), ports)).find((p) => p.id === 'copilot')!;
    expect((await copilot({ RELAY_COPILOT_BASE_URL: 'http://127.0.0.1:11434/v1' })).availability()).toEqual({ available: true, reason: '' });
    expect((await copilot({ COPILOT_GITHUB_TOKEN: 'ghp-test', RELAY_COPILOT_CLI_PATH: '/nonexistent/copilot' })).availability()).toEqual({
      available: false,
      reason: 'the Copilot CLI /nonexistent/copilot is not executable on this machine (RELAY_COPILOT_CLI_PATH)',
    });
  });

  it('sets up Codex: available with a key or an endpoint, its CLI (the one its SDK brings) and a sandbox; else unavailable with why', async () => {
    const codex = async (env: Record<string, string>, sandbox: ProviderPorts['cli'] = ports.cli) =>
      (await configuredProviders(loadConfig({ ...CREDENTIALS, DATABASE_URL, ...env }), { ...ports, cli: sandbox })).find((p) => p.id === 'codex')!;
    expect((await codex({ OPENAI_API_KEY: 'sk-test' })).availability()).toEqual({ available: true, reason: '' });
    expect((await codex({ RELAY_CODEX_BASE_URL: 'http://127.0.0.1:11434/v1' })).availability()).toEqual({ available: true, reason: '' });
    expect((await codex({ OPENAI_API_KEY: 'sk-test', RELAY_CODEX_CLI_PATH: '/nonexistent/codex' })).availability()).toEqual({
      available: false,
      reason: 'the Codex CLI /nonexistent/codex is not executable on this machine (RELAY_CODEX_CLI_PATH)',
    });
    expect((await codex({ OPENAI_API_KEY: 'sk-test' }, { ...ports.cli, unavailable: 'no bwrap here' })).availability()).toEqual({
      available: false,
      reason: "Codex runs only in the relay's sandbox: no bwrap here",
    });
  });

  it('leaves out the OpenAI-compatible providers that are not configured; the Claude ones, Copilot and Codex stay, unavailable', async () => {
    expect((await configuredProviders(loadConfig({ ...CREDENTIALS, DATABASE_URL }), ports)).map((p) => p.id)).toEqual([
      'script',
      'claude',
      'claude-api',
      'claude-cloud',
      'copilot',
      'codex',
    ]);
  });

  it('leaves out the script agent when RELAY_SCRIPT_PROVIDER is off (on by default)', async () => {
    expect(loadConfig({ ...CREDENTIALS, DATABASE_URL }).RELAY_SCRIPT_PROVIDER).toBe('on');
    expect((await configuredProviders(loadConfig({ ...CREDENTIALS, DATABASE_URL, RELAY_SCRIPT_PROVIDER: 'off' }), ports)).map((p) => p.id)).toEqual([
      'claude',
      'claude-api',
      'claude-cloud',
      'copilot',
      'codex',
    ]);
  });
});

describe('discoverModelLists', () => {
  const plugIn = (id: string, listModels: Provider['listModels'], available = true): Provider => ({
    id,
    canSteer: false,
    availability: () => (available ? ALWAYS_AVAILABLE : { available: false, reason: 'no' }),
    listModels,
    startTurn: async () => ({ text: '', model: '' }),
  });

  it('takes each list a provider gives; one that fails or cannot run stays unknown', async () => {
    let askedUnavailable = false;
    const lists = await discoverModelLists(
      [
        plugIn('a', async () => ['m-2', 'm-1']),
        plugIn('b', async () => {
          throw new Error('GET /models answered HTTP 502');
        }),
        plugIn('c', async () => ((askedUnavailable = true), ['x']), false),
      ],
      logger,
    );
    expect([...lists.entries()]).toEqual([
      ['a', ['m-2', 'm-1']],
      ['b', undefined],
      ['c', undefined],
    ]);
    expect(askedUnavailable).toBe(false);
  });
});
