export type BannerInput = {
  relayName: string;
  gatewayUrl: string;
  mcpUrl: string;
  token: string;
  sessionTitle: string;
  /** The web console's one-time sign-in link, when the gateway made one. */
  consoleUrl?: string;
};

/** What `relay up` prints once everything is ready. */
export function formatBanner(input: BannerInput): string {
  const lines = [
    `Relay "${input.relayName}" is up.`,
    `  Gateway:  ${input.gatewayUrl}`,
    input.consoleUrl === undefined
      ? `  Console:  ${input.gatewayUrl}/   (sign in with userToken from .relay/credentials.json)`
      : `  Console:  ${input.consoleUrl}   (signs you in once, within 10 minutes)`,
    `  MCP:      ${input.mcpUrl}`,
    `  Token:    ${input.token}   (an external session "${input.sessionTitle}"; use it as Authorization: Bearer <token>)`,
  ];
  lines.push('Paste into your MCP client:');
  lines.push(`  Claude Code:  ${claudeCodeCommand(input.mcpUrl, input.token)}`);
  lines.push(`  Cursor and others (mcp.json):  ${mcpJson(input.mcpUrl, input.token)}`);
  lines.push(`Try:      ${inspectorCommand(input.mcpUrl, input.token)}`);
  lines.push('Cards and asks wait in: relay inbox');
  lines.push("Only the services' warnings and errors show here; LOG_LEVEL=debug shows every line, --json passes them all.");
  lines.push('Ctrl-C stops everything.');
  return lines.join('\n');
}

/** The MCP Inspector CLI call (the last version whose CLI runs on Node 20) that lists the relays through relay_tool. */
export function inspectorCommand(mcpUrl: string, token: string): string {
  return [
    'npx -y @modelcontextprotocol/inspector@0.21.2 --cli',
    mcpUrl,
    '--transport http',
    `--header "Authorization: Bearer ${token}"`,
    '--method tools/call --tool-name relay_tool --tool-arg action=list_relays',
  ].join(' ');
}

/** Claude Code's command that adds the relay as an HTTP MCP server with its bearer token. */
export function claudeCodeCommand(mcpUrl: string, token: string): string {
  return `claude mcp add --transport http relay ${mcpUrl} --header "Authorization: Bearer ${token}"`;
}

/** The mcpServers entry most MCP clients (Cursor, VS Code, Windsurf) read. */
export function mcpJson(mcpUrl: string, token: string): string {
  return JSON.stringify({ mcpServers: { relay: { url: mcpUrl, headers: { Authorization: `Bearer ${token}` } } } });
}
