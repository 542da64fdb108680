import { enqueue } from '@relay/bus';
import type { PrismaClient, Session as SessionRow, ApiToken as ApiTokenRow } from '../generated/prisma/client.ts';
import type { ApiToken, RelaySettings, Session, SessionCreatedEvent, User } from '../domain/entities.ts';
import type { SessionFilter, SessionStore } from '../domain/ports.ts';
import { SessionSubject } from '../wire/session-events.ts';
import { toSessionCreatedPayload } from '../wire/session-wire.ts';

/** The single row of relay_settings. */
const SETTINGS_ID = 1;

/** The session service's store in its own PostgreSQL database, through Prisma. */
export class PrismaSessionStore implements SessionStore {
  constructor(private readonly prisma: PrismaClient) {}

  async findToken(tokenHash: string): Promise<ApiToken | undefined> {
    const row = await this.prisma.apiToken.findUnique({ where: { tokenHash } });
    return row === null ? undefined : toApiToken(row);
  }

  async findSession(sessionId: string): Promise<Session | undefined> {
    const row = await this.prisma.session.findUnique({ where: { id: sessionId } });
    return row === null ? undefined : toSession(row);
  }

  async userExists(userId: string): Promise<boolean> {
    return (await this.prisma.user.count({ where: { id: userId } })) > 0;
  }

  async createUser(user: User, token: ApiToken): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      await tx.user.create({ data: user });
      await tx.apiToken.create({ data: token });
    });
  }

  async createSession(session: Session, token: ApiToken, event: SessionCreatedEvent): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      await tx.session.create({ data: session });
      await enqueue(tx, { subject: SessionSubject.SESSION_CREATED, payload: toSessionCreatedPayload(event), id: event.eventId });
      await tx.apiToken.create({ data: token });
    });
  }

  async listSessions(userId: string, filter: SessionFilter): Promise<Session[]> {
    const rows = await this.prisma.session.findMany({
      where: { userId, ...(filter.archived === undefined ? {} : { archived: filter.archived }) },
      orderBy: [{ lastActivityAt: 'desc' }, { createdAt: 'desc' }],
    });
    return rows.map(toSession);
  }

  async findRelaySettings(): Promise<RelaySettings | undefined> {
    const row = await this.prisma.relaySettings.findUnique({ where: { id: SETTINGS_ID } });
    return row === null ? undefined : { agentSessionsEnabled: row.agentSessionsEnabled, maxWaitSeconds: row.maxWaitSeconds, maxTurnMinutes: row.maxTurnMinutes };
  }

  async seedRelaySettings(defaults: RelaySettings): Promise<RelaySettings> {
    // skipDuplicates is INSERT … ON CONFLICT DO NOTHING: replicas booting together do not race.
    await this.prisma.relaySettings.createMany({ data: [{ id: SETTINGS_ID, ...defaults }], skipDuplicates: true });
    const settings = await this.findRelaySettings();
    if (settings === undefined) throw new Error('relay_settings row missing right after seeding');
    return settings;
  }
}

function toSession(row: SessionRow): Session {
  return {
    id: row.id,
    userId: row.userId,
    title: row.title,
    provider: row.provider,
    model: row.model,
    origin: row.origin,
    state: row.state,
    cwd: row.cwd,
    archived: row.archived,
    messageCount: row.messageCount,
    createdAt: row.createdAt,
    lastActivityAt: row.lastActivityAt,
  };
}

function toApiToken(row: ApiTokenRow): ApiToken {
  return { tokenHash: row.tokenHash, kind: row.kind, userId: row.userId, sessionId: row.sessionId, createdAt: row.createdAt };
}
