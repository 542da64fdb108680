import { ConfiguredCatalogue } from '../../src/adapters/providers/configured-catalogue.ts';
import type { GroupInfo } from '../../src/domain/groups/group.ts';
import { NEW_SESSION_SETTINGS, type Session } from '../../src/domain/sessions/session.ts';
import type { ProviderInfo } from '../../src/domain/catalogue/provider-catalogue.ts';
import { AppError } from '@relay/errors';

export const NOW = new Date('2026-11-30T10:00:00.000Z');
export const RELAY = { name: 'build-box', defaultCwd: '/home/dev', allowedRoots: ['/home/dev', '/tmp'] };

/** Every provider of the table, all set up and runnable unless `unavailable` names them. */
export async function allProviders(unavailable: string[] = []): Promise<ProviderInfo[]> {
  const catalogue = new ConfiguredCatalogue(
    {
      RELAY_OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
      CLAUDE_CODE_OAUTH_TOKEN: 't',
      ANTHROPIC_API_KEY: 'k',
      RELAY_CLAUDE_CLOUD_AGENT_ID: 'agent_1',
      RELAY_CLAUDE_CLOUD_ENVIRONMENT_ID: 'env_1',
      RELAY_CLAUDE_MODELS: ['claude-opus-5-5', 'claude-sonnet-5-5', 'claude-haiku-5-5'],
      COPILOT_GITHUB_TOKEN: 'g',
      RELAY_COPILOT_MODELS: ['claude-opus-5.5', 'claude-sonnet-5.5', 'gpt-5.4', 'gpt-5.4-mini'],
      DEEPSEEK_API_KEY: 'd',
      RELAY_DEEPSEEK_MODELS: ['deepseek-chat', 'deepseek-reasoner'],
      OPENAI_API_KEY: 'o',
    },
    { availability: (id) => (unavailable.includes(id) ? undefined : { available: true, reason: '' }) },
  );
  return catalogue.providers();
}

/** The provider with this id from a list (the test fails loudly when it is missing). */
export function provider(providers: ProviderInfo[], id: string): ProviderInfo {
  const found = providers.find((candidate) => candidate.id === id);
  if (found === undefined) throw new Error(`no provider ${id}`);
  return found;
}

/** A hosted session of user u1 on script, idle, with overrides. */
export function aSession(overrides: Partial<Session> & { id: string }): Session {
  return {
    userId: 'u1',
    title: `Session ${overrides.id}`,
    provider: 'script',
    model: 'script-1',
    origin: 'hosted',
    state: 'idle',
    cwd: '/home/dev/shop',
    archived: false,
    messageCount: 0,
    createdAt: NOW,
    lastActivityAt: NOW,
    ...NEW_SESSION_SETTINGS,
    ...overrides,
  };
}

/** A group of user u1. */
export function aGroup(overrides: Partial<GroupInfo> & { id: string }): GroupInfo {
  return {
    userId: 'u1',
    name: null,
    madeBy: 'agent',
    createdAt: NOW,
    lastActivityAt: NOW,
    headTitle: '',
    memberCount: 1,
    activeCount: 1,
    ...overrides,
  };
}

/** The AppError a call throws (the test fails when it does not throw one). */
export function refusalOf(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}
