import { CliError } from './cli-error.ts';
import type { HostedSessionOptions, RelayMode, RelaySettingsChange, SessionScope } from './parse-command.ts';

export type CreatedSession = { session: Record<string, unknown> & { id: string }; token: string; mcpUrl?: string };

/** A hosted session as created, with its queued first prompt. */
export type StartedSession = { session: Record<string, unknown> & { id: string }; message_id: string };

/** Where a turn stands, as the gateway's wait answers it. */
export type TurnResult = {
  status: string;
  session: string;
  message_id: string;
  reply?: { text: string; model: string };
  error?: string;
  pendingQuestions?: { id: string; kind: string; question: string; options: string[] }[];
  openUrl?: string;
  note?: string;
};

/** A pending ask as the Inbox lists it. */
export type InboxAsk = { id: string; sessionId: string; question: string; options: string[]; recommendation: string; detail: string; createdAt: string | null };

/** A pending card as the Inbox lists it. */
export type InboxCard = { id: string; sessionId: string; kind: 'approval' | 'question'; title: string; lines: string[]; options: string[]; createdAt: string | null };

/** This relay's settings as the user API shows them. */
export type RelaySettingsView = { agentSessionsEnabled: boolean; maxWaitSeconds: number; maxTurnMinutes: number; taskQuietMinutes: number };

/** A session's title or group changed: the session, the fields that changed, and a group made for it. */
export type SessionSettingsChange = {
  session: Record<string, unknown> & { id: string };
  changed: string[];
  groupCreated?: { id: string; name: string };
  note?: string;
};

/** One meter of a provider's plan this month. */
export type UsageMeter = { name: string; used: number; allowance: number | null; remaining: number | null; utilization: number | null; resetsAt: string | null };

/** The usage report: per provider its status (ok, limit_reached, paused, not_tracked, not_set_up) and meters. */
export type UsageReport = {
  providers: { provider: string; status: string; reason?: string; meters: UsageMeter[]; pausedUntil?: string }[];
  claudeUsageLimitPaused: boolean;
};

/** Usage over time: the UTC days oldest first, and per tracked provider what it used on each (cost 0 where not tracked). */
export type DailyUsageReport = {
  days: string[];
  providers: { provider: string; costTracked: boolean; days: { day: string; tokens: number; inputTokens: number; outputTokens: number; costUsd: number; turns: number }[] }[];
};

/** A budget's limits (null: not limited): US$, tokens, wall-clock minutes, sessions started. */
export type BudgetLimits = { costUsd: number | null; tokens: number | null; minutes: number | null; sessions: number | null };

type Spent = { turns: number; inputTokens: number; outputTokens: number; costUsd: number };

/** What the tree under a session spent (by session, provider and relay; totals their sum) and the budgets over it. */
export type TreeUsage = {
  session: string;
  rows: (Spent & { session: string; provider: string; relay: string })[];
  totals: Spent;
  sessionsStarted: number;
  budgets: {
    session: string;
    setBy: string;
    state: string;
    level: string;
    startedAt: string;
    limits: BudgetLimits;
    remaining: BudgetLimits;
    meters: { name: string; used: number; limit: number; utilization: number }[];
    cardId: string | null;
  }[];
};

// A wait lasts up to the relay's longest wait per tool call (at most an hour); the request may take that long.
const WAIT_TIMEOUT_MS = 3_700_000;
const TIMEOUT_MS = 30_000;

/** A refusal from the gateway's user API, with the HTTP status and the relay's error code. */
export class GatewayHttpError extends CliError {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

/** The gateway's user API (`/api/v1`) as one user, identified by their bearer token. */
/** Pairing takes a round trip to the other relay. */
const PAIR_TIMEOUT_MS = 35_000;

/** An "Agents may" level. */
export type AgentLevel = 'off' | 'read' | 'read_and_prompt' | 'full';

/** A paired relay as the user API shows it. */
export type UserRole = 'admin' | 'member';

/** A user of the relay as GET /api/v1/users and /api/v1/me show them (never a token). */
export interface UserView {
  id: string;
  name: string;
  role: UserRole;
  /** ISO 8601; absent from /api/v1/me. */
  createdAt?: string;
}

export interface PairingView {
  name: string;
  url: string;
  level: AgentLevel;
  online: boolean;
  version: string;
}

/** A one-time pairing code, and the relay that made it. */
export interface PairingCode {
  code: string;
  expiresAt: string;
  relay: string;
  url: string;
}

export class GatewayApi {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
  ) {}

  /** GET /api/v1/sessions?scope= → the sessions, as the gateway shapes them. */
  async listSessions(scope: SessionScope): Promise<unknown[]> {
    const body = await this.request('GET', `/api/v1/sessions?scope=${scope}`);
    const sessions = (body as { sessions?: unknown }).sessions;
    if (!Array.isArray(sessions)) throw new CliError(`${this.baseUrl}/api/v1/sessions answered without a sessions list`);
    return sessions;
  }

  /** POST /api/v1/sessions {external, title} → the session and its bearer token (shown once). */
  async createExternalSession(title: string): Promise<CreatedSession> {
    const body = (await this.request('POST', '/api/v1/sessions', { external: true, title })) as Partial<CreatedSession>;
    if (typeof body.token !== 'string' || typeof body.session?.id !== 'string') {
      throw new CliError(`${this.baseUrl}/api/v1/sessions answered without a session and token`);
    }
    return body as CreatedSession;
  }

  /** POST /api/v1/sign-in-links → a one-time web console sign-in link for this user, and when it stops working. */
  async createSignInLink(): Promise<{ url: string; expiresAt: string }> {
    const body = (await this.request('POST', '/api/v1/sign-in-links')) as { url?: unknown; expiresAt?: unknown };
    if (typeof body.url !== 'string' || typeof body.expiresAt !== 'string') throw new CliError(`${this.baseUrl}/api/v1/sign-in-links answered without a link`);
    return { url: body.url, expiresAt: body.expiresAt };
  }

  /** POST /api/v1/sessions {text, …} → a hosted session and the id of its first prompt. */
  async createHostedSession(options: HostedSessionOptions): Promise<StartedSession> {
    const body = (await this.request('POST', '/api/v1/sessions', options)) as Partial<StartedSession>;
    if (typeof body.message_id !== 'string' || typeof body.session?.id !== 'string') {
      throw new CliError(`${this.baseUrl}/api/v1/sessions answered without a session and message_id`);
    }
    return body as StartedSession;
  }

  /** POST /api/v1/sessions/:id/messages {text} → the id of the message, written as the user. */
  async sendMessage(sessionId: string, text: string): Promise<string> {
    const body = (await this.request('POST', `/api/v1/sessions/${encodeURIComponent(sessionId)}/messages`, { text })) as { message_id?: unknown };
    if (typeof body.message_id !== 'string') throw new CliError(`${this.baseUrl} answered the message without a message_id`);
    return body.message_id;
  }

  /** GET /api/v1/sessions/:id/wait → the turn once it ends, or where it stands when the relay's longest wait runs out. */
  async waitForTurn(sessionId: string, messageId: string): Promise<TurnResult> {
    const path = `/api/v1/sessions/${encodeURIComponent(sessionId)}/wait?message_id=${encodeURIComponent(messageId)}`;
    const body = (await this.request('GET', path, undefined, WAIT_TIMEOUT_MS)) as Partial<TurnResult>;
    if (typeof body.status !== 'string') throw new CliError(`${this.baseUrl} answered the wait without a status`);
    return body as TurnResult;
  }

  /** GET /api/v1/sessions/:id?last= → the session as read_session shows it. */
  async readSession(sessionId: string, last?: number): Promise<Record<string, unknown>> {
    const query = last === undefined ? '' : `?last=${last}`;
    return (await this.request('GET', `/api/v1/sessions/${encodeURIComponent(sessionId)}${query}`)) as Record<string, unknown>;
  }

  /** GET /api/v1/sessions/:id/messages/:messageId → the whole of one message. */
  async readMessage(sessionId: string, messageId: string): Promise<{ session: string; message: Record<string, unknown> }> {
    const path = `/api/v1/sessions/${encodeURIComponent(sessionId)}/messages/${encodeURIComponent(messageId)}`;
    return (await this.request('GET', path)) as { session: string; message: Record<string, unknown> };
  }

  /** PATCH /api/v1/sessions/:id {mode, may_create_sessions} → the conversation after the change. */
  async setSessionOptions(sessionId: string, options: { mode?: RelayMode; mayCreateSessions?: boolean }): Promise<Record<string, unknown>> {
    const body = { mode: options.mode, may_create_sessions: options.mayCreateSessions };
    return (await this.request('PATCH', `/api/v1/sessions/${encodeURIComponent(sessionId)}`, body)) as Record<string, unknown>;
  }

  /** POST /api/v1/sessions/:id/stop → whether a running turn was asked to stop. */
  async stopTurn(sessionId: string): Promise<{ session: string; stopRequested: boolean }> {
    return (await this.request('POST', `/api/v1/sessions/${encodeURIComponent(sessionId)}/stop`)) as { session: string; stopRequested: boolean };
  }

  /** POST /api/v1/sessions/:id/archive or /unarchive → the session after the change. */
  async setArchived(sessionId: string, archived: boolean): Promise<{ session: Record<string, unknown> & { id: string } }> {
    const verb = archived ? 'archive' : 'unarchive';
    return (await this.request('POST', `/api/v1/sessions/${encodeURIComponent(sessionId)}/${verb}`)) as { session: Record<string, unknown> & { id: string } };
  }

  /** PATCH /api/v1/sessions/:id/settings {title, group} → the session, what changed and a group made for it. */
  async updateSessionSettings(sessionId: string, change: { title?: string; group?: string }): Promise<SessionSettingsChange> {
    return (await this.request('PATCH', `/api/v1/sessions/${encodeURIComponent(sessionId)}/settings`, change)) as SessionSettingsChange;
  }

  /** GET /api/v1/usage → what each provider's plan has used and has left. */
  async usage(): Promise<UsageReport> {
    const body = (await this.request('GET', '/api/v1/usage')) as Partial<UsageReport>;
    if (!Array.isArray(body.providers)) throw new CliError(`${this.baseUrl}/api/v1/usage answered without providers`);
    return body as UsageReport;
  }

  /** GET /api/v1/sessions/:id/tree-usage → what the tree under the session spent, and the budgets over it. */
  async treeUsage(sessionId: string): Promise<TreeUsage> {
    return this.#treeUsage(await this.request('GET', `/api/v1/sessions/${encodeURIComponent(sessionId)}/tree-usage`));
  }

  /** PUT /api/v1/sessions/:id/budget {limits} → the tree with the budget as set. */
  async setBudget(sessionId: string, limits: Partial<BudgetLimits>): Promise<TreeUsage> {
    return this.#treeUsage(await this.request('PUT', `/api/v1/sessions/${encodeURIComponent(sessionId)}/budget`, limits));
  }

  /** DELETE /api/v1/sessions/:id/budget → the tree without it. */
  async removeBudget(sessionId: string): Promise<TreeUsage> {
    return this.#treeUsage(await this.request('DELETE', `/api/v1/sessions/${encodeURIComponent(sessionId)}/budget`));
  }

  #treeUsage(body: unknown): TreeUsage {
    const usage = body as Partial<TreeUsage>;
    if (!Array.isArray(usage.rows) || !Array.isArray(usage.budgets)) throw new CliError(`${this.baseUrl} answered a tree's usage without rows and budgets`);
    return usage as TreeUsage;
  }

  /** GET /api/v1/usage/daily?days=N → what each tracked provider used on each of the last N UTC days. */
  async dailyUsage(days: number): Promise<DailyUsageReport> {
    const body = (await this.request('GET', `/api/v1/usage/daily?days=${days}`)) as Partial<DailyUsageReport>;
    if (!Array.isArray(body.days) || !Array.isArray(body.providers)) throw new CliError(`${this.baseUrl}/api/v1/usage/daily answered without days and providers`);
    return body as DailyUsageReport;
  }

  /** GET /api/v1/inbox → the user's pending asks and cards. */
  async inbox(): Promise<{ asks: InboxAsk[]; cards: InboxCard[] }> {
    const body = (await this.request('GET', '/api/v1/inbox')) as { asks?: unknown; cards?: unknown };
    if (!Array.isArray(body.asks) || !Array.isArray(body.cards)) throw new CliError(`${this.baseUrl}/api/v1/inbox answered without asks and cards`);
    return body as { asks: InboxAsk[]; cards: InboxCard[] };
  }

  /** POST /api/v1/asks/:id {decision, answer, choice} → the ask answered or dismissed. */
  async answerAsk(askId: string, decision: { decision: 'answer' | 'dismiss'; answer?: string; choice?: string }): Promise<Record<string, unknown>> {
    return (await this.request('POST', `/api/v1/asks/${encodeURIComponent(askId)}`, decision)) as Record<string, unknown>;
  }

  /** POST /api/v1/cards/:id {decision, answer, choices} → the card decided. */
  async decideCard(cardId: string, decision: { decision: 'allow' | 'deny' | 'answer' | 'dismiss'; answer?: string; choices?: string[] }): Promise<Record<string, unknown>> {
    return (await this.request('POST', `/api/v1/cards/${encodeURIComponent(cardId)}`, decision)) as Record<string, unknown>;
  }

  /** GET /api/v1/settings → this relay's settings. */
  async relaySettings(): Promise<RelaySettingsView> {
    return this.settingsOf('GET /api/v1/settings', await this.request('GET', '/api/v1/settings')).settings;
  }

  /** PATCH /api/v1/settings → the settings after the change, and which changed. */
  async updateRelaySettings(change: RelaySettingsChange): Promise<{ settings: RelaySettingsView; changed: string[] }> {
    const body = this.settingsOf('PATCH /api/v1/settings', await this.request('PATCH', '/api/v1/settings', change));
    return { settings: body.settings, changed: Array.isArray(body.changed) ? (body.changed as string[]) : [] };
  }

  private settingsOf(call: string, body: unknown): { settings: RelaySettingsView; changed?: unknown } {
    const settings = (body as { settings?: unknown } | null)?.settings;
    if (typeof settings !== 'object' || settings === null) throw new CliError(`${this.baseUrl}: ${call} answered without settings`);
    return body as { settings: RelaySettingsView; changed?: unknown };
  }

  /** The ⏰ list: the user's schedules (or one conversation's), active and ended in the last hour. */
  async listSchedules(sessionId?: string): Promise<Record<string, unknown>[]> {
    const query = sessionId ? `?session=${encodeURIComponent(sessionId)}` : '';
    const body = (await this.request('GET', `/api/v1/schedules${query}`)) as { schedules?: unknown };
    return Array.isArray(body.schedules) ? (body.schedules as Record<string, unknown>[]) : [];
  }

  /** Cancel in the ⏰ list: ends a schedule. */
  async cancelSchedule(scheduleId: string): Promise<Record<string, unknown>> {
    const body = (await this.request('DELETE', `/api/v1/schedules/${encodeURIComponent(scheduleId)}`)) as { schedule?: Record<string, unknown> };
    return body.schedule ?? {};
  }

  /** The watcher's list: what a conversation watches, active and ended in the last hour. */
  async listSubscriptions(sessionId: string): Promise<Record<string, unknown>[]> {
    const body = (await this.request('GET', `/api/v1/sessions/${encodeURIComponent(sessionId)}/subscriptions`)) as { subscriptions?: unknown };
    return Array.isArray(body.subscriptions) ? (body.subscriptions as Record<string, unknown>[]) : [];
  }

  /** Unsubscribe in the watcher's list: ends one subscription. */
  async unsubscribe(sessionId: string, subscriptionId: string): Promise<string[]> {
    const body = (await this.request('DELETE', `/api/v1/sessions/${encodeURIComponent(sessionId)}/subscriptions/${encodeURIComponent(subscriptionId)}`)) as { endedIds?: string[] };
    return body.endedIds ?? [];
  }

  /** POST /api/v1/pairing-codes → a one-time code another relay pairs with, this relay's name and URL. */
  async createPairingCode(): Promise<PairingCode> {
    return (await this.request('POST', '/api/v1/pairing-codes')) as PairingCode;
  }

  /** POST /api/v1/pairings → pairs this relay with the one at `url` using its code. */
  async pair(url: string, code: string): Promise<PairingView> {
    return ((await this.request('POST', '/api/v1/pairings', { url, code }, PAIR_TIMEOUT_MS)) as { pairing: PairingView }).pairing;
  }

  /** GET /api/v1/pairings and /api/v1/pairing-settings → the paired relays and whether other relays' agents may prompt here. */
  async pairings(): Promise<{ pairings: PairingView[]; acceptPrompts: boolean }> {
    const [list, settings] = await Promise.all([this.request('GET', '/api/v1/pairings'), this.request('GET', '/api/v1/pairing-settings')]);
    return { pairings: (list as { pairings: PairingView[] }).pairings, acceptPrompts: (settings as { accept_prompts: boolean }).accept_prompts };
  }

  /** PATCH /api/v1/pairings/:name → sets a paired relay's "Agents may" level. */
  async setPairingLevel(name: string, level: AgentLevel): Promise<PairingView> {
    return ((await this.request('PATCH', `/api/v1/pairings/${encodeURIComponent(name)}`, { level })) as { pairing: PairingView }).pairing;
  }

  /** PUT /api/v1/pairing-settings → "Accept prompts from other relays' agents". */
  async setAcceptPrompts(acceptPrompts: boolean): Promise<boolean> {
    return ((await this.request('PUT', '/api/v1/pairing-settings', { accept_prompts: acceptPrompts })) as { accept_prompts: boolean }).accept_prompts;
  }

  /** DELETE /api/v1/pairings/:name → removes a pairing on this side. */
  async unpair(name: string): Promise<PairingView> {
    return ((await this.request('DELETE', `/api/v1/pairings/${encodeURIComponent(name)}`)) as { pairing: PairingView }).pairing;
  }

  /** GET /api/v1/me → who this token is: id, name and role. */
  async me(): Promise<UserView> {
    return ((await this.request('GET', '/api/v1/me')) as { user: UserView }).user;
  }

  /** GET /api/v1/users (admins) → the relay's users, oldest first. */
  async listUsers(): Promise<UserView[]> {
    return ((await this.request('GET', '/api/v1/users')) as { users: UserView[] }).users;
  }

  /** POST /api/v1/users (admins) → the new user and their token, shown this once. */
  async createUser(name: string, role: UserRole): Promise<{ user: UserView; token: string }> {
    return (await this.request('POST', '/api/v1/users', { name, role })) as { user: UserView; token: string };
  }

  /** DELETE /api/v1/users/:id (admins) → the removed user and how many of their sessions were archived. */
  async removeUser(userId: string): Promise<{ user: UserView; archivedSessions: number }> {
    return (await this.request('DELETE', `/api/v1/users/${encodeURIComponent(userId)}`)) as { user: UserView; archivedSessions: number };
  }

  /** POST /api/v1/users/:id/token → a new token, shown this once; DELETE (revoke) → none. */
  async userToken(userId: string, revoke: boolean): Promise<{ token?: string }> {
    return (await this.request(revoke ? 'DELETE' : 'POST', `/api/v1/users/${encodeURIComponent(userId)}/token`)) as { token?: string };
  }

  /** POST /api/v1/sessions/:id/token → a new token for the session, shown this once; DELETE (revoke) → none. */
  async sessionToken(sessionId: string, revoke: boolean): Promise<{ token?: string }> {
    return (await this.request(revoke ? 'DELETE' : 'POST', `/api/v1/sessions/${encodeURIComponent(sessionId)}/token`)) as { token?: string };
  }

  private async request(method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', path: string, json?: unknown, timeoutMs = TIMEOUT_MS): Promise<unknown> {
    const url = `${this.baseUrl}${path}`;
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: { authorization: `Bearer ${this.token}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(json === undefined ? {} : { body: JSON.stringify(json) }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const { cause: reason } = error as { cause?: { code?: string; message?: string } };
      const cause = reason?.code ?? reason?.message ?? (error as Error).message;
      throw new CliError(`cannot reach the relay at ${this.baseUrl} (${cause})`, 1, { cause: error });
    }
    const text = await response.text();
    const body = parseJson(text);
    if (!response.ok) {
      const record = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
      const code = typeof record['code'] === 'string' ? record['code'] : undefined;
      const said = typeof record['error'] === 'string' ? record['error'] : typeof record['message'] === 'string' ? record['message'] : undefined;
      // The relay's own sentence, as a person reads it (the status and code stay on the error); only an answer without
      // one names the request and its HTTP status, the one thing there is to go on.
      throw new GatewayHttpError(response.status, code, said ?? `${url} answered ${method} with HTTP ${response.status} ${response.statusText}`.trimEnd());
    }
    if (body === undefined) throw new CliError(`${url} answered with something that is not JSON`);
    return body;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
