import { loadClientConfig } from '../config.ts';
import { formatSessionRead } from '../format-session-read.ts';
import { formatSessionsTable } from '../format-sessions.ts';
import { formatTurn } from '../format-turn.ts';
import { GatewayApi } from '../gateway-api.ts';
import type { HostedSessionOptions, RelayMode, SessionScope } from '../parse-command.ts';
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

/** `relay session create --text …`: a session this relay runs, with its first prompt; waits for the reply unless told not to. */
export async function runCreateHostedSession(options: { session: HostedSessionOptions; wait: boolean; json: boolean }, io: ClientIo): Promise<number> {
  const api = apiFor(io);
  const started = await api.createHostedSession(options.session);
  const turn = options.wait ? await api.waitForTurn(started.session.id, started.message_id) : undefined;
  if (options.json) {
    io.out.write(`${JSON.stringify({ ...started, ...(turn ? { turn } : {}) }, null, 2)}\n`);
    return 0;
  }
  const { id, title, provider, model } = started.session;
  const lines = [`Session "${String(title)}" created (${id}), ${String(provider)}/${String(model)}; message ${started.message_id}.`];
  lines.push(turn ? formatTurn(turn) : `Its reply: relay session show ${id}`);
  io.out.write(`${lines.join('\n')}\n`);
  return turn?.status === 'error' ? 1 : 0;
}

/** `relay say SESSION TEXT`: writes to a session as the user and waits for the reply unless told not to. */
export async function runSay(options: { sessionId: string; text: string; wait: boolean; json: boolean }, io: ClientIo): Promise<number> {
  const api = apiFor(io);
  const messageId = await api.sendMessage(options.sessionId, options.text);
  const turn = options.wait ? await api.waitForTurn(options.sessionId, messageId) : undefined;
  if (options.json) {
    io.out.write(`${JSON.stringify({ message_id: messageId, ...(turn ? { turn } : {}) }, null, 2)}\n`);
    return 0;
  }
  io.out.write(`${turn ? formatTurn(turn) : `Message ${messageId} queued.`}\n`);
  return turn?.status === 'error' ? 1 : 0;
}

/** `relay session show SESSION`: its recent messages and what goes on there. */
export async function runShowSession(options: { sessionId: string; last?: number; json: boolean }, io: ClientIo): Promise<number> {
  const read = await apiFor(io).readSession(options.sessionId, options.last);
  io.out.write(options.json ? `${JSON.stringify(read, null, 2)}\n` : `${formatSessionRead(read, new Date())}\n`);
  return 0;
}

/** `relay session set SESSION --mode … --may-create-sessions on|off`: the owner's switches on a conversation. */
export async function runSetSession(options: { sessionId: string; mode?: RelayMode; mayCreateSessions?: boolean; json: boolean }, io: ClientIo): Promise<number> {
  const changed = await apiFor(io).setSessionOptions(options.sessionId, options);
  if (options.json) {
    io.out.write(`${JSON.stringify(changed, null, 2)}\n`);
    return 0;
  }
  const mayCreate = changed['mayCreateSessions'] === true ? 'on' : 'off';
  io.out.write(`Session ${options.sessionId}: mode ${String(changed['mode'])}, agents may start sessions: ${mayCreate}.\n`);
  return 0;
}

function apiFor(io: ClientIo): GatewayApi {
  const target = resolveRelayTarget(loadClientConfig(io.env), relayPaths());
  return new GatewayApi(target.url, target.token);
}
