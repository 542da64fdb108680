import { createUserApi, type ApiBody, type Schemas, type UserApi } from '@relay/user-api';
import { CliError } from './cli-error.ts';
import type { HostedSessionOptions, RelayMode, RelaySettingsChange, SessionScope } from './parse-command.ts';

// The answers' shapes are the user API's own (its OpenAPI document, generated into @relay/user-api): none is declared here.

/** A budget to set on a conversation's tree: the limits given (null or left out: not limited). */
export type BudgetSetting = ApiBody<'/api/v1/sessions/{id}/budget', 'put'>;

// A wait lasts up to the relay's longest wait per tool call (at most an hour); the request may take that long.
const WAIT_TIMEOUT_MS = 3_700_000;
const TIMEOUT_MS = 30_000;
/** Pairing takes a round trip to the other relay. */
const PAIR_TIMEOUT_MS = 35_000;

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
export class GatewayApi {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
  ) {}

  /** The user API's typed calls, each given `timeoutMs` to answer. */
  #api(timeoutMs = TIMEOUT_MS): UserApi {
    return createUserApi((method, path, body) => this.request(method, path, body, timeoutMs));
  }

  /** GET /api/v1/sessions?scope=&page= → a page of the sessions (the most recently active first), with the total. */
  async listSessions(scope: SessionScope, page = 1): Promise<Schemas['SessionPage']> {
    return this.#api().get('/api/v1/sessions', { query: { scope, page } });
  }

  /** Every session of `scope`, page after page: what looks a session up by its title or the start of its id needs them all. */
  async listAllSessions(scope: SessionScope): Promise<Schemas['UserSession'][]> {
    const sessions: Schemas['UserSession'][] = [];
    for (let page: number | undefined = 1; page !== undefined;) {
      const listed: Schemas['SessionPage'] = await this.listSessions(scope, page);
      sessions.push(...listed.sessions);
      page = listed.nextPage;
    }
    return sessions;
  }

  /** POST /api/v1/sessions {external, title} → the session and its bearer token (shown once). */
  async createExternalSession(title: string) {
    const created = await this.#api().post('/api/v1/sessions', { body: { external: true, title } });
    if (!('token' in created)) throw new CliError(`${this.baseUrl}/api/v1/sessions answered without the session's token`);
    return created;
  }

  /** POST /api/v1/sign-in-links → a one-time web console sign-in link for this user, and when it stops working. */
  async createSignInLink(): Promise<Schemas['SignInLink']> {
    return this.#api().post('/api/v1/sign-in-links');
  }

  /** POST /api/v1/sessions {text, …} → a hosted session and the id of its first prompt. */
  async createHostedSession(options: HostedSessionOptions) {
    const created = await this.#api().post('/api/v1/sessions', { body: options });
    if (!('message_id' in created)) throw new CliError(`${this.baseUrl}/api/v1/sessions answered without the first prompt's message_id`);
    return created;
  }

  /** POST /api/v1/sessions/:id/messages {text} → the id of the message, written as the user. */
  async sendMessage(sessionId: string, text: string): Promise<string> {
    return (await this.#api().post('/api/v1/sessions/{id}/messages', { path: { id: sessionId }, body: { text } })).message_id;
  }

  /** GET /api/v1/sessions/:id/wait → the turn once it ends, or where it stands when the relay's longest wait runs out. */
  async waitForTurn(sessionId: string, messageId: string): Promise<Schemas['TurnResult']> {
    return this.#api(WAIT_TIMEOUT_MS).get('/api/v1/sessions/{id}/wait', { path: { id: sessionId }, query: { message_id: messageId } });
  }

  /** GET /api/v1/sessions/:id?last= → the session as read_session shows it. */
  async readSession(sessionId: string, last?: number): Promise<Schemas['SessionRead']> {
    return this.#api().get('/api/v1/sessions/{id}', { path: { id: sessionId }, query: { last } });
  }

  /** GET /api/v1/sessions/:id/messages/:messageId → the whole of one message. */
  async readMessage(sessionId: string, messageId: string) {
    return this.#api().get('/api/v1/sessions/{id}/messages/{messageId}', { path: { id: sessionId, messageId } });
  }

  /** PATCH /api/v1/sessions/:id {mode, may_create_sessions} → the conversation after the change. */
  async setSessionOptions(sessionId: string, options: { mode?: RelayMode; mayCreateSessions?: boolean }) {
    return this.#api().patch('/api/v1/sessions/{id}', {
      path: { id: sessionId },
      body: { mode: options.mode, may_create_sessions: options.mayCreateSessions },
    });
  }

  /** POST /api/v1/sessions/:id/stop → whether a running turn was asked to stop. */
  async stopTurn(sessionId: string) {
    return this.#api().post('/api/v1/sessions/{id}/stop', { path: { id: sessionId } });
  }

  /** POST /api/v1/sessions/:id/archive or /unarchive → the session after the change. */
  async setArchived(sessionId: string, archived: boolean): Promise<{ session: Schemas['Session'] }> {
    const options = { path: { id: sessionId } };
    return archived ? this.#api().post('/api/v1/sessions/{id}/archive', options) : this.#api().post('/api/v1/sessions/{id}/unarchive', options);
  }

  /** PATCH /api/v1/sessions/:id/settings {title, group} → the session, what changed and a group made for it. */
  async updateSessionSettings(sessionId: string, change: { title?: string; group?: string }) {
    return this.#api().patch('/api/v1/sessions/{id}/settings', { path: { id: sessionId }, body: change });
  }

  /** GET /api/v1/usage → what each provider's plan has used and has left. */
  async usage(): Promise<Schemas['UsageReport']> {
    return this.#api().get('/api/v1/usage');
  }

  /** GET /api/v1/sessions/:id/tree-usage → what the tree under the session spent, and the budgets over it. */
  async treeUsage(sessionId: string): Promise<Schemas['TreeUsage']> {
    return this.#api().get('/api/v1/sessions/{id}/tree-usage', { path: { id: sessionId } });
  }

  /** PUT /api/v1/sessions/:id/budget {limits} → the tree with the budget as set. */
  async setBudget(sessionId: string, limits: BudgetSetting): Promise<Schemas['TreeUsage']> {
    return this.#api().put('/api/v1/sessions/{id}/budget', { path: { id: sessionId }, body: limits });
  }

  /** DELETE /api/v1/sessions/:id/budget → the tree without it. */
  async removeBudget(sessionId: string): Promise<Schemas['TreeUsage']> {
    return this.#api().delete('/api/v1/sessions/{id}/budget', { path: { id: sessionId } });
  }

  /** GET /api/v1/usage/daily?days=N → what each tracked provider used on each of the last N UTC days. */
  async dailyUsage(days: number): Promise<Schemas['DailyUsage']> {
    return this.#api().get('/api/v1/usage/daily', { query: { days } });
  }

  /** GET /api/v1/inbox → the user's pending asks and cards. */
  async inbox(): Promise<Schemas['Inbox']> {
    return this.#api().get('/api/v1/inbox');
  }

  /** POST /api/v1/asks/:id {decision, answer, choice} → the ask answered or dismissed. */
  async answerAsk(askId: string, decision: ApiBody<'/api/v1/asks/{id}', 'post'>) {
    return this.#api().post('/api/v1/asks/{id}', { path: { id: askId }, body: decision });
  }

  /** POST /api/v1/cards/:id {decision, answer, choices} → the card decided. */
  async decideCard(cardId: string, decision: ApiBody<'/api/v1/cards/{id}', 'post'>) {
    return this.#api().post('/api/v1/cards/{id}', { path: { id: cardId }, body: decision });
  }

  /** GET /api/v1/settings → this relay's settings. */
  async relaySettings(): Promise<Schemas['RelaySettings']> {
    return (await this.#api().get('/api/v1/settings')).settings;
  }

  /** PATCH /api/v1/settings → the settings after the change, and which changed. */
  async updateRelaySettings(change: RelaySettingsChange) {
    return this.#api().patch('/api/v1/settings', { body: change });
  }

  /** The ⏰ list: the user's schedules (or one conversation's), active and ended in the last hour; `more` past the newest 500. */
  async listSchedules(sessionId?: string): Promise<{ schedules: Schemas['Schedule'][]; more: boolean }> {
    const { schedules, more } = await this.#api().get('/api/v1/schedules', { query: { session: sessionId } });
    return { schedules, more };
  }

  /** Cancel in the ⏰ list: ends a schedule. */
  async cancelSchedule(scheduleId: string): Promise<Schemas['Schedule']> {
    return (await this.#api().delete('/api/v1/schedules/{id}', { path: { id: scheduleId } })).schedule;
  }

  /** The watcher's list: what a conversation watches, active and ended in the last hour. */
  async listSubscriptions(sessionId: string): Promise<Schemas['Subscription'][]> {
    return (await this.#api().get('/api/v1/sessions/{id}/subscriptions', { path: { id: sessionId } })).subscriptions;
  }

  /** Unsubscribe in the watcher's list: ends one subscription. */
  async unsubscribe(sessionId: string, subscriptionId: string): Promise<string[]> {
    return (await this.#api().delete('/api/v1/sessions/{id}/subscriptions/{subscriptionId}', { path: { id: sessionId, subscriptionId } })).endedIds;
  }

  /** POST /api/v1/pairing-codes → a one-time code another relay pairs with, this relay's name and URL. */
  async createPairingCode(): Promise<Schemas['PairingCode']> {
    return this.#api().post('/api/v1/pairing-codes');
  }

  /** POST /api/v1/pairings → pairs this relay with the one at `url` using its code. */
  async pair(url: string, code: string): Promise<Schemas['Pairing']> {
    return (await this.#api(PAIR_TIMEOUT_MS).post('/api/v1/pairings', { body: { url, code } })).pairing;
  }

  /** GET /api/v1/pairings and /api/v1/pairing-settings → the paired relays and whether other relays' agents may prompt here. */
  async pairings(): Promise<{ pairings: Schemas['Pairing'][]; acceptPrompts: boolean }> {
    const [list, settings] = await Promise.all([this.#api().get('/api/v1/pairings'), this.#api().get('/api/v1/pairing-settings')]);
    return { pairings: list.pairings, acceptPrompts: settings.accept_prompts };
  }

  /** PATCH /api/v1/pairings/:name → sets a paired relay's "Agents may" level. */
  async setPairingLevel(name: string, level: Schemas['Pairing']['level']): Promise<Schemas['Pairing']> {
    return (await this.#api().patch('/api/v1/pairings/{name}', { path: { name }, body: { level } })).pairing;
  }

  /** PUT /api/v1/pairing-settings → "Accept prompts from other relays' agents". */
  async setAcceptPrompts(acceptPrompts: boolean): Promise<boolean> {
    return (await this.#api().put('/api/v1/pairing-settings', { body: { accept_prompts: acceptPrompts } })).accept_prompts;
  }

  /** DELETE /api/v1/pairings/:name → removes a pairing on this side. */
  async unpair(name: string): Promise<Schemas['Pairing']> {
    return (await this.#api().delete('/api/v1/pairings/{name}', { path: { name } })).pairing;
  }

  /** GET /api/v1/me → who this token is: id, name and role. */
  async me(): Promise<Schemas['Me']['user']> {
    return (await this.#api().get('/api/v1/me')).user;
  }

  /** GET /api/v1/users (admins) → the relay's users, oldest first. */
  async listUsers(): Promise<Schemas['User'][]> {
    return (await this.#api().get('/api/v1/users')).users;
  }

  /** POST /api/v1/users (admins) → the new user and their token, shown this once. */
  async createUser(name: string, role: Schemas['User']['role']) {
    return this.#api().post('/api/v1/users', { body: { name, role } });
  }

  /** DELETE /api/v1/users/:id (admins) → the removed user and how many of their sessions were archived. */
  async removeUser(userId: string) {
    return this.#api().delete('/api/v1/users/{id}', { path: { id: userId } });
  }

  /** POST /api/v1/users/:id/token → a new token, shown this once; DELETE (revoke) → none. */
  async userToken(userId: string, revoke: boolean): Promise<string | undefined> {
    const options = { path: { id: userId } };
    if (!revoke) return (await this.#api().post('/api/v1/users/{id}/token', options)).token;
    await this.#api().delete('/api/v1/users/{id}/token', options);
    return undefined;
  }

  /** POST /api/v1/sessions/:id/token → a new token for the session, shown this once; DELETE (revoke) → none. */
  async sessionToken(sessionId: string, revoke: boolean): Promise<string | undefined> {
    const options = { path: { id: sessionId } };
    if (!revoke) return (await this.#api().post('/api/v1/sessions/{id}/token', options)).token;
    await this.#api().delete('/api/v1/sessions/{id}/token', options);
    return undefined;
  }

  private async request(method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', path: string, json: unknown, timeoutMs: number): Promise<unknown> {
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
