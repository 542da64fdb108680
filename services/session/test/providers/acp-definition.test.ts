import { describe, expect, it } from 'vitest';
import { ConfigError } from '@relay/config';
import { loadConfig } from '../../src/config.ts';
import { acpDefinition, agentProgram } from '../../src/adapters/providers/acp/acp-definition.ts';
import { BubblewrapSandbox } from '../../src/adapters/tasks/bubblewrap-sandbox.ts';
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

  it('takes home files by their path inside the home only (text, or an object as JSON)', () => {
    const withFiles = (homeFiles: unknown) =>
      loadConfig({ ...CREDENTIALS, DATABASE_URL, RELAY_ACP_AGENTS: JSON.stringify([{ id: 'gemini', command: ['gemini'], homeFiles }]) });
    const files = { '.gemini/settings.json': { security: { environmentVariableRedaction: { enabled: true } } }, '.env': 'A=1' };
    expect(withFiles(files).RELAY_ACP_AGENTS[0]!.homeFiles).toEqual(files);
    for (const outside of ['/etc/gemini-cli/settings.json', '../.bashrc', '.gemini/../../x', 'a//b', '.', 'a/'])
      expect(() => withFiles({ [outside]: 'x' }), outside).toThrow(/must be a path inside the home/);
  });

  it('finds the program on PATH where its sandbox runs it, or says why not', async () => {
    const config = loadConfig({
      ...CREDENTIALS,
      DATABASE_URL,
      RELAY_ACP_AGENTS: JSON.stringify([
        { id: 'shell', command: ['sh'] },
        { id: 'gemini', command: ['gemini-not-here'] },
        { id: 'absolute', command: ['/nonexistent/agent'] },
      ]),
    });
    const programs = acpDefinition.clis!(config, { childEnv: { PATH: '/nonexistent:/bin:/usr/bin' } } as never);
    const sandbox = new BubblewrapSandbox(undefined, 'not asked to run', []);
    const found = await sandbox.locate(Object.values(programs));
    expect(agentProgram('sh', found[0], sandbox.machine)).toMatchObject({ path: expect.stringMatching(/\/sh$/), reason: '' });
    expect(agentProgram('gemini-not-here', found[1], sandbox.machine)).toEqual({
      path: undefined,
      reason: "the ACP agent's program gemini-not-here is not on the relay's PATH on this machine (RELAY_ACP_AGENTS)",
    });
    expect(agentProgram('/nonexistent/agent', found[2], 'on the command runner')).toEqual({
      path: undefined,
      reason: "the ACP agent's program /nonexistent/agent is not executable on the command runner (RELAY_ACP_AGENTS)",
    });
  });
});
