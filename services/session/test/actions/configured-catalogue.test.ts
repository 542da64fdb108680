import { homedir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '@relay/config';
import { ConfiguredCatalogue } from '../../src/catalogue/configured-catalogue.ts';
import { loadConfig } from '../../src/config.ts';

const DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/relay_session';

describe('ConfiguredCatalogue on a relay with nothing configured', () => {
  const catalogue = new ConfiguredCatalogue(loadConfig({ DATABASE_URL }));

  it('lists every provider of the table, only script available', async () => {
    const providers = await catalogue.providers();
    expect(providers.map((p) => [p.id, p.available])).toEqual([
      ['script', true],
      ['openai', false],
      ['claude', false],
      ['claude-api', false],
      ['claude-cloud', false],
      ['copilot', false],
      ['deepseek', false],
      ['openai-image', false],
    ]);
  });

  it('gives script its one model and no efforts', async () => {
    const [script] = await catalogue.providers();
    expect(script).toMatchObject({ defaultModel: 'script-1', models: ['script-1'], modelsKnown: true, efforts: [], reason: '' });
  });

  it('says honestly why each other provider is not available', async () => {
    const byId = Object.fromEntries((await catalogue.providers()).map((p) => [p.id, p]));
    expect(byId['openai']!.reason).toBe('no OpenAI-compatible endpoint configured (RELAY_OPENAI_BASE_URL)');
    expect(byId['claude']!.reason).toBe('Claude Code credentials not configured (CLAUDE_CODE_OAUTH_TOKEN)');
    expect(byId['claude-api']!.reasonCode).toBe('CLAUDE_API_NOT_CONFIGURED');
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
  });

  it('makes a configured provider available only when the relay can run it', async () => {
    const configured = loadConfig({ DATABASE_URL, DEEPSEEK_API_KEY: 'k', RELAY_OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1', RELAY_OPENAI_MODELS: 'llama3, qwen' });
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
    expect(loadConfig({ DATABASE_URL })).toMatchObject({ RELAY_DEFAULT_CWD: homedir(), RELAY_ALLOWED_ROOTS: [homedir(), '/tmp'] });
  });

  it('reads a list of roots and a name', () => {
    const config = loadConfig({ DATABASE_URL, RELAY_NAME: 'build-box', RELAY_ALLOWED_ROOTS: '/srv/work, /tmp', RELAY_DEFAULT_CWD: '/srv/work/main' });
    expect(config).toMatchObject({ RELAY_NAME: 'build-box', RELAY_ALLOWED_ROOTS: ['/srv/work', '/tmp'], RELAY_DEFAULT_CWD: '/srv/work/main' });
  });

  it('refuses relative roots, a default folder outside the roots, and a bad name', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig({ DATABASE_URL, ...env });
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
