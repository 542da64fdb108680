// A benchmark's agents on a relay of test/harness/relay.ts: MCP clients with external sessions' tokens, the script
// session they read, and the PostgreSQL backends that serve the relay.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import pg from 'pg';
import { STATEFUL, type Relay } from '../../test/harness/relay.ts';

/** One call; answers whether it succeeded. */
export type Call = () => Promise<boolean>;

export async function mcpClient(url: string, token?: string): Promise<Client> {
  const client = new Client({ name: 'bench-agent', version: '0.0.0' });
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/**
 * Runs `work` on an MCP client of its own, closed after. A benchmark gives each run of a few hundred or thousand calls
 * a client of its own: the SDK's client passes one AbortSignal to every fetch, and undici lets go of a call's listener
 * on it only when that call is collected (past 1,500 calls Node warns of a leak).
 */
export async function withMcpClient<T>(url: string, token: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = await mcpClient(url, token);
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}

/** The actions whose first failure was printed already. */
const reported = new Set<string>();

/** A relay_tool call that answers whether it succeeded (ok: true); an action's first failure is printed. */
export function relayCall(client: Client, args: Record<string, unknown>): Call {
  return async () => {
    const result = await client.callTool({ name: 'relay_tool', arguments: args });
    const text = (result.content as { text?: string }[] | undefined)?.[0]?.text ?? '';
    const ok = result.isError !== true && (JSON.parse(text) as { ok?: boolean }).ok === true;
    if (!ok && !reported.has(String(args.action))) {
      reported.add(String(args.action));
      console.error(`${String(args.action)} failed: ${text.slice(0, 500)}`);
    }
    return ok;
  };
}

/** A script session that has replied once (two messages to read), started through the user API; its id. */
export async function readableSession(relay: Relay): Promise<string> {
  const created = await relay.api('POST', '/api/v1/sessions', { provider: 'script', title: 'Read by the benchmark', text: 'reply hello' });
  if (created.status !== 201) throw new Error(`POST /api/v1/sessions answered ${created.status}: ${JSON.stringify(created.body)}`);
  const id = created.body.session.id as string;
  for (;;) {
    const { body } = await relay.api('GET', `/api/v1/sessions/${id}`);
    if (body.session.state === 'idle') return id;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The tokens of `count` external sessions: each call they make also reads its session's pending note. */
export async function externalAgentTokens(relay: Relay, count: number): Promise<string[]> {
  const tokens: string[] = [];
  for (let i = 0; i < count; i++) tokens.push((await relay.createExternalSession(`bench agent ${i}`)).token);
  return tokens;
}

/** The three reads of this relay that the benchmarks time, as one client's calls. */
export function relayReads(client: Client, readId: string): Record<'list_sessions' | 'read_session' | 'relay_info', Call> {
  return {
    list_sessions: relayCall(client, { action: 'list_sessions', relay: 'this' }),
    read_session: relayCall(client, { action: 'read_session', relay: 'this', session: readId }),
    relay_info: relayCall(client, { action: 'relay_info', relay: 'this' }),
  };
}

/**
 * The pids of the PostgreSQL backends connected to the relay's databases now (PostgreSQL runs on this machine), read
 * over a connection of its own; `close` ends it.
 */
export async function relayBackends(relay: Relay): Promise<{ pids(): Promise<number[]>; close(): Promise<void> }> {
  const server = new URL(relay.databaseUrls.session);
  server.pathname = '/postgres';
  const stats = new pg.Client({ connectionString: server.toString() });
  await stats.connect();
  const names = STATEFUL.map((service) => new URL(relay.databaseUrls[service]).pathname.slice(1));
  return {
    pids: async () => (await stats.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = ANY($1)', [names])).rows.map((row) => row.pid),
    close: () => stats.end(),
  };
}
