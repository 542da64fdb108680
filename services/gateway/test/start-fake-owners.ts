/**
 * Small fakes of the session and pairing services, served over real gRPC on port 0, so the
 * gateway's integration tests exercise its real clients. The real services are tested end to end.
 */
import { randomUUID } from 'node:crypto';
import { AppError } from '@relay/errors';
import { AgentLevel, PairingServiceService, type PairedRelay, type PairingServiceServer } from '@relay/proto/relay/pairing/v1/pairing_service';
import { SessionOrigin, SessionState, type RelaySettings, type Session } from '@relay/proto/relay/session/v1/session';
import { SessionServiceService, type SessionServiceServer } from '@relay/proto/relay/session/v1/session_service';
import { serveUnary, startGrpcServer, type GrpcServer } from '@relay/rpc';
import type { Logger } from '@relay/telemetry';

export interface FakeOwners {
  sessionAddress: string;
  pairingAddress: string;
  settings: RelaySettings;
  paired: PairedRelay[];
  sessions: Session[];
  /** bearer token → caller */
  tokens: Map<string, { userId: string; sessionId?: string }>;
  /** Adds a session of `userId` with a token for its agent; returns the token. */
  addAgentSession(userId: string, fields?: Partial<Session>): { session: Session; token: string };
  addUser(userId: string): string;
  /** Makes the next calls of `method` fail with a plain error (an internal fault). */
  failing: Set<string>;
  stop(): Promise<void>;
}

/** Starts both fakes on loopback. */
export async function startFakeOwners(logger: Logger): Promise<FakeOwners> {
  const settings: RelaySettings = { agentSessionsEnabled: true, maxWaitSeconds: 600, maxTurnMinutes: 60 };
  const paired: PairedRelay[] = [];
  const sessions: Session[] = [];
  const tokens = new Map<string, { userId: string; sessionId?: string }>();
  const failing = new Set<string>();
  const guard = (method: string) => {
    if (failing.has(method)) throw new Error(`${method} broke: password=hunter2`);
  };

  const newSession = (userId: string, fields: Partial<Session> = {}): Session => ({
    id: randomUUID(),
    userId,
    title: 'Untitled',
    provider: 'script',
    model: 'script-1',
    state: SessionState.SESSION_STATE_IDLE,
    cwd: '/tmp',
    archived: false,
    origin: SessionOrigin.SESSION_ORIGIN_HOSTED,
    messageCount: 0,
    createdAt: new Date('2026-01-01T00:00:00Z'),
    lastActivityAt: new Date('2026-01-01T00:00:00Z'),
    ...fields,
  });

  const sessionService: GrpcServer = await startGrpcServer({
    port: 0,
    host: '127.0.0.1',
    logger,
    services: [
      {
        definition: SessionServiceService,
        implementation: serveUnary<SessionServiceServer>(logger, {
          authenticate: async ({ token }) => {
            guard('authenticate');
            const caller = tokens.get(token);
            if (!caller) throw new AppError('UNAUTHENTICATED', 'unauthenticated', 'unknown or revoked token');
            return { caller: { userId: caller.userId, sessionId: caller.sessionId ?? '' } };
          },
          createUser: async () => {
            throw new AppError('REMOTE_RELAY_UNSUPPORTED', 'unimplemented', 'not in the fake');
          },
          listSessions: async ({ userId, scope }) => {
            guard('listSessions');
            const wanted = scope === '' ? 'active' : scope;
            if (!['active', 'archived', 'all'].includes(wanted)) {
              throw new AppError('REMOTE_RELAY_INVALID_INPUT', 'invalid_argument', `unknown scope "${scope}"`);
            }
            const mine = sessions.filter((s) => s.userId === userId && (wanted === 'all' || s.archived === (wanted === 'archived')));
            return { sessions: mine };
          },
          createExternalSession: async ({ userId, title }) => {
            guard('createExternalSession');
            if (title.length > 200) throw new AppError('REMOTE_RELAY_INVALID_INPUT', 'invalid_argument', 'title is longer than 200 characters');
            const session = newSession(userId, { title: title || 'External session', provider: 'external', model: '', cwd: '', origin: SessionOrigin.SESSION_ORIGIN_EXTERNAL });
            sessions.push(session);
            const token = `rs_${randomUUID()}`;
            tokens.set(token, { userId, sessionId: session.id });
            return { session, token };
          },
          getRelaySettings: async () => {
            guard('getRelaySettings');
            return { settings };
          },
        }),
      },
    ],
  });
  const pairingService: GrpcServer = await startGrpcServer({
    port: 0,
    host: '127.0.0.1',
    logger,
    services: [
      {
        definition: PairingServiceService,
        implementation: serveUnary<PairingServiceServer>(logger, {
          listPairedRelays: async () => {
            guard('listPairedRelays');
            return { relays: paired };
          },
        }),
      },
    ],
  });

  return {
    sessionAddress: `127.0.0.1:${sessionService.port}`,
    pairingAddress: `127.0.0.1:${pairingService.port}`,
    settings,
    paired,
    sessions,
    tokens,
    failing,
    addAgentSession(userId, fields) {
      const session = newSession(userId, fields);
      sessions.push(session);
      const token = `rs_${randomUUID()}`;
      tokens.set(token, { userId, sessionId: session.id });
      return { session, token };
    },
    addUser(userId) {
      const token = `ru_${randomUUID()}`;
      tokens.set(token, { userId });
      return token;
    },
    async stop() {
      await Promise.all([sessionService.shutdown(), pairingService.shutdown()]);
    },
  };
}
