import { CliError } from './cli-error.ts';
import type { SessionScope } from './parse-command.ts';

export type CreatedSession = { session: Record<string, unknown> & { id: string }; token: string; mcpUrl?: string };

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

  private async request(method: 'GET' | 'POST', path: string, json?: unknown): Promise<unknown> {
    const url = `${this.baseUrl}${path}`;
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: { authorization: `Bearer ${this.token}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(json === undefined ? {} : { body: JSON.stringify(json) }),
        signal: AbortSignal.timeout(30_000),
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
      const reason = typeof record['error'] === 'string' ? record['error'] : typeof record['message'] === 'string' ? record['message'] : response.statusText;
      throw new GatewayHttpError(response.status, code, `the relay refused ${method} ${path}: ${code === undefined ? '' : `${code}: `}${reason} (HTTP ${response.status})`);
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
