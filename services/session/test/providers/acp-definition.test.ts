import { describe, expect, it } from 'vitest';
import { ConfigError } from '@relay/config';
import { loadConfig } from '../../src/config.ts';
import { acpDefinition, findProgram } from '../../src/adapters/providers/acp/acp-definition.ts';
import { ConfiguredCatalogue } from '../../src/adapters/providers/configured-catalogue.ts';

/** A service starts only with its gRPC credentials (relay up makes them); the tests give a valid set. */
const CREDENTIALS = { RELAY_SERVICE_TOKEN: 't'.repeat(43), RELAY_SERVICE_KEYS: `gateway:${'0'.repeat(64)}` };
const DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/relay_session';

describe('RELAY_ACP_AGENTS', () => {
  it('lists each agent as its own provider of family acp, its models configured or unknown until discovery', async () => {
    const config = loadConfig({
      ...CREDENTIALS,
      DATABASE_URL,
      RELAY_ACP_AGENTS: JSON.stringify([
        { id: 'gemini', name: 'Gemini CLI', command: ['gemini', '--experimental-acp'] },
        { id: 'opencode', command: ['opencode', 'acp'], models: ['m-1'] },
      ]),
    });
    expect(acpDefinition.list(config)).toEqual([
      { id: 'gemini', name: 'Gemini CLI', family: 'acp', configured: true, missing: '', models: undefined, efforts: [] },
      { id: 'opencode', name: 'opencode', family: 'acp', configured: true, missing: '', models: ['m-1'], efforts: [] },
    ]);
    const listed = await new ConfiguredCatalogue(config, {
      availability: () => ({ available: false, reason: 'why' }),
      discovered: new Map([['gemini', ['g-2']]]),
    }).providers();
    expect(listed.filter((provider) => provider.family === 'acp').map((provider) => [provider.id, provider.models, provider.reason])).toEqual([
      ['gemini', ['g-2'], 'why'],
      ['opencode', ['m-1'], 'why'],
    ]);
  });

  it("refuses an agent id the relay's own table or an endpoint has", () => {
    expect(() => loadConfig({ ...CREDENTIALS, DATABASE_URL, RELAY_ACP_AGENTS: JSON.stringify([{ id: 'claude', command: ['x'] }]) })).toThrow(ConfigError);
    expect(() =>
      loadConfig({
        ...CREDENTIALS,
        DATABASE_URL,
        RELAY_OPENAI_ENDPOINTS: JSON.stringify([{ id: 'grok', baseUrl: 'https://api.x.ai/v1' }]),
        RELAY_ACP_AGENTS: JSON.stringify([{ id: 'grok', command: ['x'] }]),
      }),
    ).toThrow(/RELAY_ACP_AGENTS/);
  });

  it('finds the program on PATH, or says why not', () => {
    expect(findProgram('sh', '/nonexistent:/bin:/usr/bin')).toMatchObject({ path: expect.stringMatching(/\/sh$/), reason: '' });
    expect(findProgram('gemini-not-here', '/bin')).toEqual({
      path: undefined,
      reason: "the ACP agent's program gemini-not-here is not on this relay's PATH (RELAY_ACP_AGENTS)",
    });
    expect(findProgram('/nonexistent/agent', '')).toEqual({
      path: undefined,
      reason: "the ACP agent's program /nonexistent/agent is not executable (RELAY_ACP_AGENTS)",
    });
  });
});
