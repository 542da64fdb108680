import { describe, expect, it } from 'vitest';
import { buildClaudeQueryOptions, RELAY_TOOL_FOR_CLAUDE, type ClaudeQueryInput } from '../../src/adapters/providers/claude/claude-query-options.ts';

const session = {
  cwd: '/home/dev/shop',
  model: 'claude-sonnet-5-5',
  effort: 'high',
  autoCompactWindow: 'auto',
  thinkingEnabled: true,
  thinkingDisplay: 'summarized',
};
const base: ClaudeQueryInput = {
  billing: { provider: 'claude', oauthToken: 'oauth-subscription' },
  session,
  token: 'rly_s_session-token',
  gatewayUrl: 'http://127.0.0.1:7420',
  executable: '/opt/claude/claude',
  resumeId: undefined,
  baseEnv: { PATH: '/usr/bin', HOME: '/home/dev', ANTHROPIC_API_KEY: 'relay-own-key', CLAUDE_CODE_OAUTH_TOKEN: 'relay-own-oauth', ANTHROPIC_AUTH_TOKEN: 'x' },
};

describe('buildClaudeQueryOptions', () => {
  it('gives Claude Code the relay as HTTP MCP server "relay" with the session token, and allows relay_tool as mcp__relay__relay_tool', () => {
    const options = buildClaudeQueryOptions(base);
    expect(RELAY_TOOL_FOR_CLAUDE).toBe('mcp__relay__relay_tool');
    expect(options.mcpServers).toEqual({
      relay: { type: 'http', url: 'http://127.0.0.1:7420/mcp', headers: { Authorization: 'Bearer rly_s_session-token' }, alwaysLoad: true },
    });
    expect(options.allowedTools).toEqual(['mcp__relay__relay_tool']);
    // The token travels over stdin, not on a command line.
    expect(options.mcpServersDelivery).toBe('initialize');
    // Every other tool asks through canUseTool (the session's question cards).
    expect(options.permissionMode).toBe('default');
  });

  it('runs the session’s model, effort and folder with the given executable; resumes the session’s Claude Code session', () => {
    expect(buildClaudeQueryOptions(base)).toMatchObject({
      cwd: '/home/dev/shop',
      model: 'claude-sonnet-5-5',
      effort: 'high',
      pathToClaudeCodeExecutable: '/opt/claude/claude',
    });
    expect(buildClaudeQueryOptions(base).resume).toBeUndefined();
    expect(buildClaudeQueryOptions({ ...base, resumeId: 'cc-session-1' }).resume).toBe('cc-session-1');
    expect(buildClaudeQueryOptions({ ...base, session: { ...session, effort: '' } }).effort).toBeUndefined();
  });

  it('bills the subscription with the OAuth token alone: no API key reaches Claude Code', () => {
    const { env } = buildClaudeQueryOptions(base);
    expect(env).toEqual({ PATH: '/usr/bin', HOME: '/home/dev', CLAUDE_CODE_OAUTH_TOKEN: 'oauth-subscription' });
  });

  it('bills the API key with the key alone: no subscription token reaches Claude Code', () => {
    const { env } = buildClaudeQueryOptions({ ...base, billing: { provider: 'claude-api', apiKey: 'sk-ant-key' } });
    expect(env).toEqual({ PATH: '/usr/bin', HOME: '/home/dev', ANTHROPIC_API_KEY: 'sk-ant-key' });
  });

  it('applies the Claude-only settings: thinking on or off with its display, the compaction window when not auto', () => {
    expect(buildClaudeQueryOptions(base)).toMatchObject({ thinking: { type: 'adaptive', display: 'summarized' } });
    expect(buildClaudeQueryOptions(base).settings).toBeUndefined();
    const set = buildClaudeQueryOptions({ ...base, session: { ...session, thinkingEnabled: false, autoCompactWindow: '400000' } });
    expect(set.thinking).toEqual({ type: 'disabled' });
    expect(set.settings).toEqual({ autoCompactWindow: 400_000 });
    expect(buildClaudeQueryOptions({ ...base, session: { ...session, thinkingDisplay: 'hidden' } }).thinking).toEqual({ type: 'adaptive', display: 'omitted' });
    expect(buildClaudeQueryOptions({ ...base, session: { ...session, thinkingDisplay: 'full' } }).thinking).toEqual({
      type: 'adaptive',
      display: 'summarized',
    });
  });
});
