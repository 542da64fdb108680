import { describe, expect, it } from 'vitest';
import { formatBanner } from '../src/format-banner.ts';

const input = {
  relayName: 'build-box',
  gatewayUrl: 'http://127.0.0.1:7420',
  mcpUrl: 'http://127.0.0.1:7420/mcp',
  token: 'rly_s_abc',
  sessionTitle: 'Terminal',
  inspectorInstalled: true,
};

describe('formatBanner', () => {
  it('prints the URLs, the token and the inspector command', () => {
    expect(formatBanner(input).split('\n')).toEqual([
      'Relay "build-box" is up.',
      '  Gateway:  http://127.0.0.1:7420',
      '  MCP:      http://127.0.0.1:7420/mcp',
      '  Token:    rly_s_abc   (an external session "Terminal"; use it as Authorization: Bearer <token>)',
      'Try: npx mcp-inspector --cli http://127.0.0.1:7420/mcp --transport http --header "Authorization: Bearer rly_s_abc" --method tools/call --tool-name relay_tool --tool-arg action=list_sessions',
      'Ctrl-C stops everything.',
    ]);
  });

  it('leaves the inspector line out when the inspector is not installed', () => {
    expect(formatBanner({ ...input, inspectorInstalled: false })).not.toContain('Try:');
  });
});
