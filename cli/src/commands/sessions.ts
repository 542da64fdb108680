import { loadClientConfig } from '../config.ts';
import { formatSessionsTable } from '../format-sessions.ts';
import { GatewayApi } from '../gateway-api.ts';
import type { SessionScope } from '../parse-command.ts';
import { relayPaths } from '../relay-paths.ts';
import { resolveRelayTarget } from '../relay-target.ts';

/** `env` defaults to the process's environment. */
export type ClientIo = { env?: NodeJS.ProcessEnv; out: NodeJS.WritableStream };

/** `relay sessions`: the user's sessions as a table, or `{ sessions }` as JSON. */
export async function runSessions(options: { scope: SessionScope; json: boolean }, io: ClientIo): Promise<number> {
  const target = resolveRelayTarget(loadClientConfig(io.env), relayPaths());
  const sessions = await new GatewayApi(target.url, target.token).listSessions(options.scope);
  io.out.write(options.json ? `${JSON.stringify({ sessions }, null, 2)}\n` : `${formatSessionsTable(sessions, options.scope, new Date())}\n`);
  return 0;
}

/** `relay session create --external`: a session for the user's own MCP client; prints its MCP URL and token. */
export async function runCreateSession(options: { title: string; json: boolean }, io: ClientIo): Promise<number> {
  const target = resolveRelayTarget(loadClientConfig(io.env), relayPaths());
  const created = await new GatewayApi(target.url, target.token).createExternalSession(options.title);
  if (options.json) {
    io.out.write(`${JSON.stringify(created, null, 2)}\n`);
    return 0;
  }
  const mcpUrl = created.mcpUrl ?? `${target.url}/mcp`;
  io.out.write(
    [
      `Session "${options.title}" created (${created.session.id}).`,
      `  MCP:    ${mcpUrl}`,
      `  Token:  ${created.token}   (shown once; use it as Authorization: Bearer <token>)`,
      '',
    ].join('\n'),
  );
  return 0;
}
