import { describe, expect, it } from 'vitest';
import { formatBanner } from '../src/format-banner.ts';

const input = {
  relayName: 'build-box',
  gatewayUrl: 'http://127.0.0.1:7420',
  mcpUrl: 'http://127.0.0.1:7420/mcp',
  token: 'rly_s_abc',
  sessionTitle: 'Terminal',
};

describe('formatBanner', () => {
  it('prints the URLs, the token and a pinned inspector command that lists the relays', () => {
    expect(formatBanner(input).split('\n')).toEqual([
      'Relay "build-box" is up.',
      '  Gateway:  http://127.0.0.1:7420',
      '  MCP:      http://127.0.0.1:7420/mcp',
      '  Token:    rly_s_abc   (an external session "Terminal"; use it as Authorization: Bearer <token>)',
      'Try:      npx -y @modelcontextprotocol/inspector@0.21.2 --cli http://127.0.0.1:7420/mcp --transport http --header "Authorization: Bearer rly_s_abc" --method tools/call --tool-name relay_tool --tool-arg action=list_relays',
      'Ctrl-C stops everything.',
    ]);
  });
});
