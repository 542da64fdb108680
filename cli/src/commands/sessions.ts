import { loadClientConfig } from '../config.ts';
import { formatSessionRead } from '../format-session-read.ts';
import { formatSessionsPage, formatSessionsTable } from '../format-sessions.ts';
import { formatTurn } from '../format-turn.ts';
import type { Schemas } from '@relay/user-api';
import { GatewayApi } from '../gateway-api.ts';
import type { HostedSessionOptions, RelayMode, SessionScope } from '../parse-command.ts';
import { relayPaths } from '../relay-paths.ts';
import { resolveRelayTarget } from '../relay-target.ts';
import { resolveSession } from './session-name.ts';
import { showWaiting, type StatusStream } from './waiting-line.ts';

/** `env` defaults to the process's environment; `err`, when a terminal, shows what a command waits for. */
export type ClientIo = { env?: NodeJS.ProcessEnv; out: NodeJS.WritableStream; err?: StatusStream };

/**
 * `relay sessions`: a page of the user's sessions (the first unless --page), the most recently active first, as a
 * table with a line saying how many more there are and how to read them, or the user API's page as JSON; with --all,
 * every page, as one table or `{ sessions, sessionsTotal }`.
 */
export async function runSessions(options: { scope: SessionScope; page?: number; all: boolean; json: boolean }, io: ClientIo): Promise<number> {
  const target = resolveRelayTarget(loadClientConfig(io.env), relayPaths());
  const api = new GatewayApi(target.url, target.token);
  if (options.all) {
    const sessions = await api.listAllSessions(options.scope);
    io.out.write(
      options.json
        ? `${JSON.stringify({ sessions, sessionsTotal: sessions.length }, null, 2)}\n`
        : `${formatSessionsTable(sessions, options.scope, new Date())}\n`,
    );
    return 0;
  }
  const listed = await api.listSessions(options.scope, options.page);
  io.out.write(options.json ? `${JSON.stringify(listed, null, 2)}\n` : `${formatSessionsPage(listed, options.scope, new Date())}\n`);
  return 0;
}

/** `relay session create --external`: a session for the user's own MCP client; prints its MCP URL and token. */
export async function runCreateSession(options: { title?: string; json: boolean }, io: ClientIo): Promise<number> {
  const target = resolveRelayTarget(loadClientConfig(io.env), relayPaths());
  const api = new GatewayApi(target.url, target.token);
  // Without --title, a title no session has, so that it names this one (relay up's own is "Terminal").
  const title =
    options.title ??
    unusedTitle(
      DEFAULT_EXTERNAL_TITLE,
      (await api.listAllSessions('all')).map((session) => session.title),
    );
  const created = await api.createExternalSession(title);
  if (options.json) {
    io.out.write(`${JSON.stringify(created, null, 2)}\n`);
    return 0;
  }
  const mcpUrl = created.mcpUrl ?? `${target.url}/mcp`;
  io.out.write(
    [
      `Session "${title}" created (${created.session.id}).`,
      `  MCP:    ${mcpUrl}`,
      `  Token:  ${created.token}   (shown once; use it as Authorization: Bearer <token>)`,
      '',
    ].join('\n'),
  );
  return 0;
}

const DEFAULT_EXTERNAL_TITLE = 'Terminal';

/** `base` if no session is titled so, else "`base` 2", "`base` 3", … the first that none is. */
export function unusedTitle(base: string, titles: readonly string[]): string {
  const taken = new Set(titles);
  if (!taken.has(base)) return base;
  let number = 2;
  while (taken.has(`${base} ${number}`)) number += 1;
  return `${base} ${number}`;
}

/** `relay session create --text …`: a session this relay runs, with its first prompt; waits for the reply unless told not to. */
export async function runCreateHostedSession(options: { session: HostedSessionOptions; wait: boolean; json: boolean }, io: ClientIo): Promise<number> {
  const api = apiFor(io);
  const started = await api.createHostedSession(options.session);
  const turn = options.wait ? await waitWithLine(api, io, started.session.id, started.message_id) : undefined;
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
  const sessionId = await resolveSession(api, options.sessionId);
  const messageId = await api.sendMessage(sessionId, options.text);
  const turn = options.wait ? await waitWithLine(api, io, sessionId, messageId) : undefined;
  if (options.json) {
    io.out.write(`${JSON.stringify({ message_id: messageId, ...(turn ? { turn } : {}) }, null, 2)}\n`);
    return 0;
  }
  io.out.write(`${turn ? formatTurn(turn) : `Message ${messageId} queued.`}\n`);
  return turn?.status === 'error' ? 1 : 0;
}

/** `relay session show SESSION`: its recent messages and what goes on there; with --message, the whole of one. */
export async function runShowSession(options: { sessionId: string; last?: number; message?: string; json: boolean }, io: ClientIo): Promise<number> {
  const api = apiFor(io);
  const sessionId = await resolveSession(api, options.sessionId);
  if (options.message !== undefined) {
    const read = await api.readMessage(sessionId, options.message);
    io.out.write(options.json ? json(read) : `${String(read.message['text'] ?? '')}\n`);
    return 0;
  }
  const read = await api.readSession(sessionId, options.last);
  io.out.write(options.json ? `${JSON.stringify(read, null, 2)}\n` : `${formatSessionRead(read, new Date())}\n`);
  return 0;
}

/** `relay session set SESSION --mode … --may-create-sessions on|off`: the owner's switches on a conversation. */
export async function runSetSession(
  options: { sessionId: string; mode?: RelayMode; mayCreateSessions?: boolean; json: boolean },
  io: ClientIo,
): Promise<number> {
  const api = apiFor(io);
  const sessionId = await resolveSession(api, options.sessionId);
  const changed = await api.setSessionOptions(sessionId, options);
  if (options.json) {
    io.out.write(`${JSON.stringify(changed, null, 2)}\n`);
    return 0;
  }
  const mayCreate = changed['mayCreateSessions'] === true ? 'on' : 'off';
  io.out.write(`Session ${sessionId}: mode ${String(changed['mode'])}, agents may start sessions: ${mayCreate}.\n`);
  return 0;
}

/** `relay session stop SESSION`: stops the turn running there, or says nothing was running. */
export async function runStopSession(options: { sessionId: string; json: boolean }, io: ClientIo): Promise<number> {
  const api = apiFor(io);
  const stopped = await api.stopTurn(await resolveSession(api, options.sessionId));
  io.out.write(
    options.json ? json(stopped) : `Session ${stopped.session}: ${stopped.stopRequested ? 'its turn was asked to stop.' : 'nothing was running.'}\n`,
  );
  return 0;
}

/** `relay session archive|unarchive SESSION`. */
export async function runArchiveSession(options: { sessionId: string; archived: boolean; json: boolean }, io: ClientIo): Promise<number> {
  const api = apiFor(io);
  const { session } = await api.setArchived(await resolveSession(api, options.sessionId), options.archived);
  const text = options.archived
    ? `Archived "${String(session['title'])}" (${session.id}): its queued turns were dropped and a running one stops. Bring it back with relay session unarchive ${session.id}.`
    : `Unarchived "${String(session['title'])}" (${session.id}): it is in your active sessions again.`;
  io.out.write(options.json ? json({ session }) : `${text}\n`);
  return 0;
}

/** `relay session rename SESSION TITLE` and `relay session group SESSION GROUP|--none`. */
export async function runUpdateSession(options: { sessionId: string; title?: string; group?: string; json: boolean }, io: ClientIo): Promise<number> {
  const api = apiFor(io);
  const change = { ...(options.title !== undefined ? { title: options.title } : {}), ...(options.group !== undefined ? { group: options.group } : {}) };
  const updated = await api.updateSessionSettings(await resolveSession(api, options.sessionId), change);
  if (options.json) {
    io.out.write(json(updated));
    return 0;
  }
  const { session } = updated;
  const group = session['group'] as { name?: string } | undefined;
  const lines =
    options.title !== undefined
      ? [`Session ${session.id} is now "${String(session['title'])}".`]
      : [
          group?.name
            ? `Session ${session.id} is in group "${group.name}"${updated.groupCreated ? ' (a new group)' : ''}.`
            : `Session ${session.id} is in no group.`,
        ];
  if (updated.changed.length === 0) lines.push('Nothing changed.');
  if (updated.note) lines.push(updated.note);
  io.out.write(`${lines.join('\n')}\n`);
  return 0;
}

/** Waits for a turn, with a line on a terminal's stderr saying so while it lasts. */
async function waitWithLine(api: GatewayApi, io: ClientIo, sessionId: string, messageId: string): Promise<Schemas['TurnResult']> {
  const end = showWaiting(io.err, `the reply in session ${sessionId.slice(0, 8)}`);
  try {
    return await api.waitForTurn(sessionId, messageId);
  } finally {
    end();
  }
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

function apiFor(io: ClientIo): GatewayApi {
  const target = resolveRelayTarget(loadClientConfig(io.env), relayPaths());
  return new GatewayApi(target.url, target.token);
}
