import { homedir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '@relay/config';
import { ConfiguredCatalogue } from '../../src/adapters/providers/configured-catalogue.ts';
import { loadConfig } from '../../src/config.ts';

/** A service starts only with its gRPC credentials (relay up makes them); the tests give a valid set. */
const CREDENTIALS = { RELAY_SERVICE_TOKEN: 't'.repeat(43), RELAY_SERVICE_KEYS: `gateway:${'0'.repeat(64)}` };

const DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/relay_session';

describe('ConfiguredCatalogue on a relay with nothing configured', () => {
  const catalogue = new ConfiguredCatalogue(loadConfig({ ...CREDENTIALS, DATABASE_URL }));

  it('lists every provider of the table, only script available', async () => {
    const providers = await catalogue.providers();
    expect(providers.map((p) => [p.id, p.available])).toEqual([
      ['script', true],
      ['openai', false],
      ['claude', false],
      ['claude-api', false],
      ['claude-cloud', false],
      ['copilot', false],
      ['codex', false],
      ['deepseek', false],
      ['openai-image', false],
    ]);
  });

  it('gives script its one model and no efforts', async () => {
    const [script] = await catalogue.providers();
    expect(script).toMatchObject({ defaultModel: 'script-1', models: ['script-1'], modelsKnown: true, efforts: [], reason: '' });
  });

  it('lists script as switched off, with why, when RELAY_SCRIPT_PROVIDER is off', async () => {
    const [script] = await new ConfiguredCatalogue(loadConfig({ ...CREDENTIALS, DATABASE_URL, RELAY_SCRIPT_PROVIDER: 'off' })).providers();
    expect(script).toMatchObject({
      id: 'script',
      available: false,
      reason: 'the script agent is switched off on this relay (RELAY_SCRIPT_PROVIDER)',
      reasonCode: 'SCRIPT_NOT_CONFIGURED',
    });
  });

  it('says honestly why each other provider is not available', async () => {
    const byId = Object.fromEntries((await catalogue.providers()).map((p) => [p.id, p]));
    expect(byId['openai']!.reason).toBe('no OpenAI-compatible endpoint configured (RELAY_OPENAI_BASE_URL)');
    expect(byId['claude']!.reason).toBe('Claude Code credentials not configured (CLAUDE_CODE_OAUTH_TOKEN)');
    expect(byId['claude-api']!.reasonCode).toBe('CLAUDE_API_NOT_CONFIGURED');
    expect(byId['codex']).toMatchObject({
      reason: 'OpenAI API key for Codex not configured (OPENAI_API_KEY), nor an OpenAI-compatible endpoint (RELAY_CODEX_BASE_URL)',
      reasonCode: 'CODEX_NOT_CONFIGURED',
    });
  });

  it('lists the configured default model lists, dashes for Claude and dots for Copilot', async () => {
    const byId = Object.fromEntries((await catalogue.providers()).map((p) => [p.id, p]));
    for (const id of ['claude', 'claude-api', 'claude-cloud']) {
      expect(byId[id]).toMatchObject({
        models: ['claude-opus-5-5', 'claude-sonnet-5-5', 'claude-haiku-5-5'],
        defaultModel: 'claude-opus-5-5',
        efforts: ['low', 'medium', 'high'],
      });
    }
    expect(byId['copilot']!.models).toEqual(['claude-opus-5.5', 'claude-sonnet-5.5', 'gpt-5.4', 'gpt-5.4-mini']);
    expect(byId['deepseek']!.models).toEqual(['deepseek-chat', 'deepseek-reasoner']);
    expect(byId['openai']).toMatchObject({ models: [], modelsKnown: false, defaultModel: '' });
    // Codex's are discovered from its endpoint unless RELAY_CODEX_MODELS names them.
    expect(byId['codex']).toMatchObject({ family: 'codex', models: [], modelsKnown: false });
    const named = await new ConfiguredCatalogue(loadConfig({ ...CREDENTIALS, DATABASE_URL, RELAY_CODEX_MODELS: 'gpt-5.5, gpt-5.4' })).providers();
    expect(named.find((p) => p.id === 'codex')).toMatchObject({ models: ['gpt-5.5', 'gpt-5.4'], modelsKnown: true, defaultModel: 'gpt-5.5' });
  });

  it('makes a configured provider available only when the relay can run it', async () => {
    const configured = loadConfig({
      ...CREDENTIALS,
      DATABASE_URL,
      DEEPSEEK_API_KEY: 'k',
      RELAY_OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
      RELAY_OPENAI_MODELS: 'llama3, qwen',
    });
    const runsDeepSeek = new ConfiguredCatalogue(configured, {
      availability: (id) => (id === 'script' || id === 'deepseek' ? { available: true, reason: '' } : undefined),
    });
    const byId = Object.fromEntries((await runsDeepSeek.providers()).map((p) => [p.id, p]));
    expect(byId['deepseek']!.available).toBe(true);
    expect(byId['openai']).toMatchObject({ available: false, reasonCode: 'OPENAI_NOT_RUNNABLE', models: ['llama3', 'qwen'], modelsKnown: true });
  });
});

describe('loadConfig: the relay and its folders', () => {
  it('defaults the folders to the home folder and /tmp', () => {
    expect(loadConfig({ ...CREDENTIALS, DATABASE_URL })).toMatchObject({ RELAY_DEFAULT_CWD: homedir(), RELAY_ALLOWED_ROOTS: [homedir(), '/tmp'] });
  });

  it('reads a list of roots and a name', () => {
    const config = loadConfig({
      ...CREDENTIALS,
      DATABASE_URL,
      RELAY_NAME: 'build-box',
      RELAY_ALLOWED_ROOTS: '/srv/work, /tmp',
      RELAY_DEFAULT_CWD: '/srv/work/main',
    });
    expect(config).toMatchObject({ RELAY_NAME: 'build-box', RELAY_ALLOWED_ROOTS: ['/srv/work', '/tmp'], RELAY_DEFAULT_CWD: '/srv/work/main' });
  });

  it('refuses relative roots, a default folder outside the roots, and a bad name', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig({ ...CREDENTIALS, DATABASE_URL, ...env });
      } catch (error) {
        if (error instanceof ConfigError) return error.problems.map((problem) => problem.variable);
        throw error;
      }
      return [];
    };
    expect(problems({ RELAY_ALLOWED_ROOTS: 'work' })).toContain('RELAY_ALLOWED_ROOTS.0');
    expect(problems({ RELAY_ALLOWED_ROOTS: '/srv', RELAY_DEFAULT_CWD: '/home/x' })).toEqual(['RELAY_DEFAULT_CWD']);
    expect(problems({ RELAY_NAME: 'build box' })).toEqual(['RELAY_NAME']);
  });
});

describe('ConfiguredCatalogue with plug-ins and plans', () => {
  it('lists each extra endpoint as its own provider, after openai; its models configured or unknown until discovery', async () => {
    const catalogue = new ConfiguredCatalogue(
      { RELAY_OPENAI_ENDPOINTS: [{ id: 'grok', name: 'Grok', models: ['grok-4'] }, { id: 'ollama' }] },
      { availability: (id) => ({ available: id !== 'ollama', reason: id === 'ollama' ? 'unreachable' : '' }) },
    );
    const providers = await catalogue.providers();
    expect(providers.map((p) => p.id).slice(0, 4)).toEqual(['script', 'openai', 'grok', 'ollama']);
    expect(providers[2]).toMatchObject({ name: 'Grok', family: 'openai', available: true, models: ['grok-4'], modelsKnown: true });
    expect(providers[3]).toMatchObject({ name: 'ollama', available: false, reason: 'unreachable', reasonCode: 'OLLAMA_NOT_RUNNABLE', modelsKnown: false });
  });

  it("gives a configured provider whose plug-in cannot run here the plug-in's reason (no binary)", async () => {
    const catalogue = new ConfiguredCatalogue(
      { CLAUDE_CODE_OAUTH_TOKEN: 't', RELAY_CLAUDE_MODELS: ['claude-opus-5-5'] },
      { availability: (id) => (id === 'claude' ? { available: false, reason: "Claude Code's executable is not installed" } : { available: true, reason: '' }) },
    );
    const claude = (await catalogue.providers()).find((p) => p.id === 'claude');
    expect(claude).toMatchObject({ available: false, reason: "Claude Code's executable is not installed", reasonCode: 'CLAUDE_NOT_RUNNABLE' });
  });

  it('makes claude-api unavailable with CLAUDE_API_CAP_REACHED once this month’s cost reaches the cap', async () => {
    let spent = 9;
    const catalogue = new ConfiguredCatalogue(
      { ANTHROPIC_API_KEY: 'k', RELAY_CLAUDE_MODELS: ['claude-opus-5-5'] },
      {
        availability: () => ({ available: true, reason: '' }),
        usage: {
          ledger: { totalsSince: async () => [{ provider: 'claude-api', inputTokens: 0, outputTokens: 0, costUsd: spent }] },
          allowances: { 'claude-api': { monthlyUsd: 10 } },
          now: () => new Date('2026-11-30T10:00:00.000Z'),
        },
      },
    );
    const claudeApi = async () => (await catalogue.providers()).find((p) => p.id === 'claude-api');
    expect(await claudeApi()).toMatchObject({ available: true, reasonCode: '' });
    spent = 10;
    expect(await claudeApi()).toMatchObject({ available: false, reasonCode: 'CLAUDE_API_CAP_REACHED' });
  });
});
