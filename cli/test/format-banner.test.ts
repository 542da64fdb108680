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
  it("prints the console's one-time sign-in link when there is one, and otherwise where its token is", () => {
    expect(formatBanner({ ...input, consoleUrl: 'http://127.0.0.1:7420/#link=rly_l_x' }).split('\n')[2]).toBe(
      '  Console:  http://127.0.0.1:7420/#link=rly_l_x   (signs you in once, within 10 minutes)',
    );
    expect(formatBanner(input).split('\n')[2]).toBe('  Console:  http://127.0.0.1:7420/   (sign in with userToken from .relay/credentials.json)');
  });

  it('prints the URLs, the token, what to paste into an MCP client and a pinned inspector command that lists the relays', () => {
    expect(formatBanner(input).split('\n')).toEqual([
      'Relay "build-box" is up.',
      '  Gateway:  http://127.0.0.1:7420',
      '  Console:  http://127.0.0.1:7420/   (sign in with userToken from .relay/credentials.json)',
      '  MCP:      http://127.0.0.1:7420/mcp',
      '  Token:    rly_s_abc   (an external session "Terminal"; use it as Authorization: Bearer <token>)',
      'Paste into your MCP client:',
      '  Claude Code:  claude mcp add --transport http relay http://127.0.0.1:7420/mcp --header "Authorization: Bearer rly_s_abc"',
      '  Cursor and others (mcp.json):  {"mcpServers":{"relay":{"url":"http://127.0.0.1:7420/mcp","headers":{"Authorization":"Bearer rly_s_abc"}}}}',
      'Try:      npx -y @modelcontextprotocol/inspector@0.21.2 --cli http://127.0.0.1:7420/mcp --transport http --header "Authorization: Bearer rly_s_abc" --method tools/call --tool-name relay_tool --tool-arg action=list_relays',
      'Cards and asks wait in: relay inbox',
      "Only the services' warnings and errors show here; LOG_LEVEL=debug shows every line, --json passes them all.",
      'Ctrl-C stops everything.',
    ]);
  });
});
