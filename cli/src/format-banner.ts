export type BannerInput = {
  relayName: string;
  gatewayUrl: string;
  mcpUrl: string;
  token: string;
  sessionTitle: string;
};

/** What `relay up` prints once everything is ready. */
export function formatBanner(input: BannerInput): string {
  const lines = [
    `Relay "${input.relayName}" is up.`,
    `  Gateway:  ${input.gatewayUrl}`,
    `  MCP:      ${input.mcpUrl}`,
    `  Token:    ${input.token}   (an external session "${input.sessionTitle}"; use it as Authorization: Bearer <token>)`,
  ];
  lines.push(`Try:      ${inspectorCommand(input.mcpUrl, input.token)}`);
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
