import { enqueue, outgoing } from '@relay/bus';
import { SessionEvents } from '@relay/proto/relay/bus-contracts';
import { activeTraceParent } from '@relay/telemetry';
import type { Group, GroupInfo, GroupMember, GroupRole } from '../../domain/groups/group.ts';
import type { ConversationGrant, Message, MessageRole, Provenance, RelayUnlock } from '../../domain/sessions/conversation.ts';
import type { RelayMode, Session, SessionChanges, SessionView, ThinkingDisplay } from '../../domain/sessions/session.ts';
import type { RelaySettings } from '../../domain/settings/relay-settings.ts';
import { OPEN_TURN_STATUSES, type Turn, type TurnQueuedEvent } from '../../domain/turns/turn.ts';
import type { ApiToken, SignInLink, User } from '../../domain/users/user.ts';
import { toGroupRef } from '../../domain/groups/groups.ts';
import { STARTED_REMOTE_GRANT } from '../../app/sessions/remote-sessions.ts';
import type { ConversationStore, SessionEvent, SessionFilter, SessionStore, UsersTransaction } from '../../app/ports.ts';
import { Prisma, type Message as MessageRow, type PrismaClient, type Session as SessionRow } from '../../generated/prisma/client.ts';
import { toSessionArchived, toSessionCreated, toTurnQueued, type ApiMessages } from './outbox-events.ts';
import { toTurn } from './turn-row.ts';

/** The fields of a user the domain knows (removed_at stays in the store). */
const USER_FIELDS = { id: true, name: true, role: true, createdAt: true } as const;

/** pg_advisory_xact_lock's key for the users lock (an arbitrary constant of this service's database). */
const USERS_LOCK_KEY = 7_301_001;

/** The single row of relay_settings. */
export const SETTINGS_ID = 1;

type Db = PrismaClient | Prisma.TransactionClient;

/**
 * The session service's store in its own PostgreSQL database, through Prisma. Built on the client, or
 * (inside `transaction`) on one interactive transaction, so a use case's reads and writes commit together.
 */
export class PrismaSessionStore implements SessionStore, ConversationStore {
  constructor(
    private readonly db: Db,
    private readonly api: Pick<ApiMessages, 'toSessionMessage'>,
    private readonly inTransaction = false,
  ) {}

  /** Runs work atomically: in the surrounding transaction if there is one, else in a new one. */
  private atomically<T>(work: (db: Prisma.TransactionClient) => Promise<T>): Promise<T> {
    return this.inTransaction ? work(this.db) : (this.db as PrismaClient).$transaction(work);
  }

  async transaction<T>(work: (tx: ConversationStore) => Promise<T>): Promise<T> {
    return this.atomically((tx) => work(new PrismaSessionStore(tx, this.api, true)));
  }

  async findSession(sessionId: string): Promise<Session | undefined> {
    const row = await this.db.session.findUnique({ where: { id: sessionId } });
    return row === null ? undefined : toSession(row);
  }

  async lockSession(sessionId: string): Promise<Session | undefined> {
    // NO KEY UPDATE: serialises writers of this session without blocking rows that merely reference it.
    await this.db.$queryRawUnsafe('SELECT 1 FROM "sessions" WHERE "id" = $1 FOR NO KEY UPDATE', sessionId);
    return this.findSession(sessionId);
  }

  async userExists(userId: string): Promise<boolean> {
    return (await this.db.user.count({ where: { id: userId, removedAt: null } })) > 0;
  }

  async findUser(userId: string): Promise<User | undefined> {
    const row = await this.db.user.findFirst({ where: { id: userId, removedAt: null }, select: USER_FIELDS });
    return row ?? undefined;
  }

  async listUsers(): Promise<User[]> {
    return this.db.user.findMany({ where: { removedAt: null }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], select: USER_FIELDS });
  }

  async lockUsers<T>(work: (tx: UsersTransaction) => Promise<T>): Promise<T> {
    return this.atomically(async (tx) => {
      // Held until the transaction ends; every write of users takes it, reads (Authenticate) never wait for it.
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${USERS_LOCK_KEY})`;
      return work(new PrismaSessionStore(tx, this.api, true));
    });
  }

  async markUserRemoved(userId: string, now: Date): Promise<void> {
    await this.atomically(async (tx) => {
      // Session tokens carry the user's id too: one delete ends the user's own and every session's (console sign-ins too).
      await tx.apiToken.deleteMany({ where: { userId } });
      await tx.signInLink.deleteMany({ where: { userId } });
      await tx.user.update({ where: { id: userId }, data: { removedAt: now } });
      // What other services keep acting for them (pairings, pairing codes, schedules, subscriptions) ends on this.
      const eventId = `user_removed:${userId}`;
      await enqueue(tx, SessionEvents.USER_REMOVED, { eventId, occurredAt: now, userId }, { id: eventId });
    });
  }

  async replaceUserTokens(userId: string, token: ApiToken | null): Promise<void> {
    await this.atomically(async (tx) => {
      await tx.apiToken.deleteMany({ where: { userId, kind: 'user' } });
      if (token !== null) await tx.apiToken.create({ data: token });
    });
  }

  async saveSignInLink(link: SignInLink, now: Date): Promise<void> {
    await this.atomically(async (tx) => {
      // Links nobody redeemed in time go with the next one made, and so do the expired tokens redeeming made.
      await tx.signInLink.deleteMany({ where: { expiresAt: { lte: now } } });
      await tx.apiToken.deleteMany({ where: { expiresAt: { lte: now } } });
      await tx.signInLink.create({ data: link });
    });
  }

  async redeemSignInLink(linkHash: string, now: Date, mint: (userId: string) => ApiToken): Promise<ApiToken | undefined> {
    return this.atomically(async (tx) => {
      // Deleting is what makes the link single-use: of two redeeming at once, only one deletes the row.
      const [taken] = await tx.$queryRaw<{ user_id: string }[]>`
        DELETE FROM "sign_in_links" WHERE "link_hash" = ${linkHash} AND "expires_at" > ${now} RETURNING "user_id"`;
      if (taken === undefined) return undefined;
      const user = await tx.user.findFirst({ where: { id: taken.user_id, removedAt: null }, select: { id: true } });
      if (user === null) return undefined;
      const token = mint(user.id);
      await tx.apiToken.create({ data: token });
      return token;
    });
  }

  async deleteSignInToken(tokenHash: string): Promise<boolean> {
    return (await this.db.apiToken.deleteMany({ where: { tokenHash, expiresAt: { not: null } } })).count > 0;
  }

  async replaceSessionTokens(sessionId: string, token: ApiToken | null): Promise<void> {
    await this.atomically(async (tx) => {
      await tx.apiToken.deleteMany({ where: { sessionId } });
      // A signed-in MCP client's refresh tokens go too: it would otherwise get new access tokens at once.
      await tx.oAuthRefreshToken.deleteMany({ where: { grant: { sessionId } } });
      if (token !== null) await tx.apiToken.create({ data: token });
    });
  }

  async createUser(user: User, token: ApiToken): Promise<void> {
    await this.atomically(async (tx) => {
      await tx.user.create({ data: user });
      await tx.apiToken.create({ data: token });
    });
  }

  async createSession(session: Session, token: ApiToken | null, event: { eventId: string; occurredAt: Date; session: Session }): Promise<void> {
    await this.atomically(async (tx) => {
      await tx.session.create({ data: session });
      await enqueue(tx, SessionEvents.SESSION_CREATED, toSessionCreated(this.api, event), { id: event.eventId });
      if (token !== null) await tx.apiToken.create({ data: token });
    });
  }

  async listSessions(userId: string, filter: SessionFilter): Promise<Session[]> {
    const rows = await this.db.session.findMany({
      where: { userId, ...(filter.archived === undefined ? {} : { archived: filter.archived }) },
      orderBy: [{ lastActivityAt: 'desc' }, { createdAt: 'desc' }],
    });
    return rows.map(toSession);
  }

  async viewSessions(sessions: readonly Session[]): Promise<SessionView[]> {
    const groupIds = [...new Set(sessions.flatMap((session) => (session.groupId === null ? [] : [session.groupId])))];
    const starterIds = [...new Set(sessions.flatMap((session) => (session.startedBySessionId === null ? [] : [session.startedBySessionId])))];
    const [groups, starters] = await Promise.all([
      groupIds.length === 0 ? [] : this.groupInfos({ id: { in: groupIds } }),
      starterIds.length === 0 ? [] : this.db.session.findMany({ where: { id: { in: starterIds } }, select: { id: true, title: true } }),
    ]);
    const groupById = new Map(groups.map((group) => [group.id, group]));
    const titleById = new Map(starters.map((starter) => [starter.id, starter.title]));
    return sessions.map((session) => {
      const group = session.groupId === null ? undefined : groupById.get(session.groupId);
      return {
        ...session,
        group: group === undefined ? null : toGroupRef(group, session.groupRole ?? 'member'),
        startedByTitle: session.startedBySessionId === null ? '' : (titleById.get(session.startedBySessionId) ?? ''),
      };
    });
  }

  async countSessionsAtWork(startedBySessionId: string): Promise<number> {
    return this.db.session.count({
      where: { startedBySessionId, turns: { some: { status: { in: [...OPEN_TURN_STATUSES] } } } },
    });
  }

  async countStartedSessions(startedBySessionId: string): Promise<number> {
    const [here, remote] = await Promise.all([
      this.db.session.count({ where: { startedBySessionId } }),
      this.db.conversationGrant.count({ where: { sessionId: startedBySessionId, kind: STARTED_REMOTE_GRANT } }),
    ]);
    return here + remote;
  }

  async openTurns(sessionId: string): Promise<Turn[]> {
    const rows = await this.db.turn.findMany({
      where: { sessionId, status: { in: [...OPEN_TURN_STATUSES] } },
      orderBy: [{ queuedAt: 'asc' }, { id: 'asc' }],
    });
    return rows.map(toTurn);
  }

  async hasRunningTask(sessionId: string): Promise<boolean> {
    return (await this.db.task.count({ where: { sessionId, status: 'running' } })) > 0;
  }

  async listGroups(userId: string): Promise<GroupInfo[]> {
    return this.groupInfos({ userId });
  }

  async findGroup(groupId: string): Promise<GroupInfo | undefined> {
    const [group] = await this.groupInfos({ id: groupId });
    return group;
  }

  private async groupInfos(where: Prisma.GroupWhereInput): Promise<GroupInfo[]> {
    const rows = await this.db.group.findMany({
      where,
      orderBy: [{ lastActivityAt: 'desc' }, { createdAt: 'desc' }, { id: 'asc' }],
      include: { sessions: { select: { title: true, groupRole: true, archived: true } } },
    });
    return rows.map(({ sessions, ...group }) => ({
      id: group.id,
      userId: group.userId,
      name: group.name,
      madeBy: group.madeBy === 'user' ? 'user' : 'agent',
      createdAt: group.createdAt,
      lastActivityAt: group.lastActivityAt,
      headTitle: sessions.find((session) => session.groupRole === 'head')?.title ?? '',
      memberCount: sessions.length,
      activeCount: sessions.filter((session) => !session.archived).length,
    }));
  }

  async groupMembers(groupId: string, limit: number): Promise<GroupMember[]> {
    const rows = await this.db.session.findMany({
      where: { groupId },
      // 'head' sorts before 'member'.
      orderBy: [{ groupRole: 'asc' }, { createdAt: 'asc' }, { id: 'asc' }],
      ...(Number.isSafeInteger(limit) && limit < 1_000_000 ? { take: limit } : {}),
      select: { id: true, title: true, groupRole: true, state: true, archived: true },
    });
    return rows.map((row) => ({ id: row.id, title: row.title, role: toRole(row.groupRole) ?? 'member', state: row.state, archived: row.archived }));
  }

  async hasGrant(grant: Omit<ConversationGrant, 'createdAt'>): Promise<boolean> {
    return (await this.db.conversationGrant.count({ where: grant })) > 0;
  }

  async grantRelays(sessionId: string, kind: ConversationGrant['kind']): Promise<string[]> {
    const rows = await this.db.conversationGrant.findMany({ where: { sessionId, kind }, select: { relay: true }, orderBy: { relay: 'asc' } });
    return rows.map((row) => row.relay);
  }

  async insertSession(session: Session): Promise<void> {
    await this.db.session.create({ data: session });
  }

  async updateSession(sessionId: string, changes: SessionChanges): Promise<void> {
    await this.db.session.update({ where: { id: sessionId }, data: changes });
  }

  async insertGroup(group: Group): Promise<void> {
    await this.db.group.create({ data: group });
  }

  async deleteGroup(groupId: string): Promise<void> {
    await this.atomically(async (tx) => {
      // The foreign key clears group_id; the role goes with it.
      await tx.session.updateMany({ where: { groupId }, data: { groupRole: null } });
      await tx.group.delete({ where: { id: groupId } });
    });
  }

  async unlockRelays(sessionId: string, unlocks: readonly RelayUnlock[], now: Date): Promise<void> {
    await this.atomically(async (tx) => {
      for (const unlock of unlocks) {
        await tx.conversationUnlock.upsert({
          where: { sessionId_relay: { sessionId, relay: unlock.relay } },
          create: { sessionId, relay: unlock.relay, byMention: unlock.byMention, createdAt: now },
          // A mention upgrades an agent's unlock; an agent's writing never takes a mention back.
          update: unlock.byMention ? { byMention: true } : {},
        });
      }
    });
  }

  async listUnlocks(sessionId: string): Promise<RelayUnlock[]> {
    const rows = await this.db.conversationUnlock.findMany({ where: { sessionId }, orderBy: { createdAt: 'asc' } });
    return rows.map((row) => ({ relay: row.relay, byMention: row.byMention }));
  }

  async firstPromptProvenance(sessionId: string): Promise<Provenance | null> {
    const row = await this.db.message.findFirst({ where: { sessionId }, orderBy: { seq: 'asc' }, select: { provenance: true } });
    return (row?.provenance as Provenance | null | undefined) ?? null;
  }

  async queueMessage(input: { message: Message; turn: Turn; event: TurnQueuedEvent }): Promise<void> {
    const { message, turn, event } = input;
    await this.atomically(async (tx) => {
      await tx.message.create({ data: { ...message, provenance: jsonOrNull(message.provenance) } });
      await tx.turn.create({
        data: {
          ...turn,
          provenance: jsonOrNull(turn.provenance),
          traceParent: activeTraceParent(),
          pendingQuestions: turn.pendingQuestions as unknown as Prisma.InputJsonValue,
        },
      });
      const session = await tx.session.update({
        where: { id: message.sessionId },
        data: { messageCount: { increment: 1 }, state: 'running_turn', lastActivityAt: message.createdAt },
        select: { groupId: true },
      });
      if (session.groupId !== null) {
        await tx.group.update({ where: { id: session.groupId }, data: { lastActivityAt: message.createdAt } });
      }
      await this.enqueueEvent(tx, { type: 'turn_queued', ...event });
    });
  }

  async stopQueuedTurns(sessionId: string, now: Date): Promise<number> {
    const { count } = await this.db.turn.updateMany({ where: { sessionId, status: 'queued' }, data: { status: 'stopped', endedAt: now } });
    return count;
  }

  async requestStop(sessionId: string): Promise<boolean> {
    const { count } = await this.db.turn.updateMany({
      where: { sessionId, status: { in: ['running', 'waiting_for_answer'] } },
      data: { stopRequested: true },
    });
    return count > 0;
  }

  async noteAskAbout(userId: string, sessionId: string): Promise<boolean> {
    const count = await this.db.$executeRaw`UPDATE sessions SET ask_mark = nextval('session_ask_marks') WHERE id = ${sessionId} AND user_id = ${userId}`;
    return count > 0;
  }

  async clearAskMark(userId: string, sessionId: string, mark: number): Promise<boolean | undefined> {
    // The mark is compared again on the row the update locks, so a note given meanwhile keeps its mark.
    const [row] = await this.db.$queryRaw<{ cleared: boolean }[]>`
      WITH target AS (SELECT id FROM sessions WHERE id = ${sessionId} AND user_id = ${userId}),
           cleared AS (UPDATE sessions s SET ask_mark = 0 FROM target WHERE s.id = target.id AND s.ask_mark = ${mark} AND s.ask_mark <> 0 RETURNING s.id)
      SELECT EXISTS (SELECT 1 FROM cleared) AS cleared FROM target`;
    return row?.cleared;
  }

  async insertGrant(grant: ConversationGrant): Promise<void> {
    await this.db.conversationGrant.createMany({ data: [grant], skipDuplicates: true });
  }

  async insertToken(token: ApiToken): Promise<void> {
    await this.db.apiToken.create({ data: token });
  }

  async recordEvent(event: SessionEvent): Promise<void> {
    await this.enqueueEvent(this.db, event);
  }

  private async enqueueEvent(db: Db, event: SessionEvent): Promise<void> {
    const id = { id: event.eventId };
    await enqueue(
      db,
      event.type === 'session_created'
        ? outgoing(SessionEvents.SESSION_CREATED, toSessionCreated(this.api, event), id)
        : event.type === 'turn_queued'
          ? outgoing(SessionEvents.TURN_QUEUED, toTurnQueued(event), id)
          : outgoing(SessionEvents.ARCHIVED, toSessionArchived(event), id),
    );
  }

  async findRelaySettings(): Promise<RelaySettings | undefined> {
    const row = await this.db.relaySettings.findUnique({ where: { id: SETTINGS_ID } });
    return row === null ? undefined : toRelaySettings(row);
  }

  async updateRelaySettings(change: Partial<RelaySettings>): Promise<RelaySettings> {
    return toRelaySettings(await this.db.relaySettings.update({ where: { id: SETTINGS_ID }, data: change }));
  }

  async seedRelaySettings(defaults: RelaySettings): Promise<RelaySettings> {
    // skipDuplicates is INSERT … ON CONFLICT DO NOTHING: replicas booting together do not race.
    await this.db.relaySettings.createMany({ data: [{ id: SETTINGS_ID, ...defaults }], skipDuplicates: true });
    const settings = await this.findRelaySettings();
    if (settings === undefined) throw new Error('relay_settings row missing right after seeding');
    return settings;
  }
}

/** The settings of a relay_settings row (as Prisma or pg-token-reads.ts reads it), without its other columns. */
export function toRelaySettings(row: RelaySettings): RelaySettings {
  return {
    agentSessionsEnabled: row.agentSessionsEnabled,
    maxWaitSeconds: row.maxWaitSeconds,
    maxTurnMinutes: row.maxTurnMinutes,
    taskQuietMinutes: row.taskQuietMinutes,
  };
}

function jsonOrNull(value: Provenance | null): Prisma.InputJsonValue | typeof Prisma.DbNull {
  return value === null ? Prisma.DbNull : (value as unknown as Prisma.InputJsonValue);
}

/** A sessions row as Prisma reads it (pg-session-reads.ts reads it so too). */
export function toSession(row: SessionRow): Session {
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
    effort: row.effort,
    mode: row.mode as RelayMode,
    repo: row.repo,
    branch: row.branch,
    groupId: row.groupId,
    groupRole: toRole(row.groupRole),
    startedBySessionId: row.startedBySessionId,
    mayCreateSessions: row.mayCreateSessions,
    autoCompactWindow: row.autoCompactWindow,
    thinkingEnabled: row.thinkingEnabled,
    thinkingDisplay: row.thinkingDisplay as ThinkingDisplay,
    workerStarted: row.workerStarted,
  };
}

function toRole(value: string | null): GroupRole | null {
  return value === 'head' || value === 'member' ? value : null;
}

/** A messages row as Prisma reads it (pg-session-reads.ts reads it so too). */
export function toMessage(row: MessageRow): Message {
  return {
    id: row.id,
    sessionId: row.sessionId,
    role: row.role as MessageRole,
    text: row.text,
    provenance: row.provenance as Provenance | null,
    model: row.model,
    senderSessionId: row.senderSessionId,
    createdAt: row.createdAt,
  };
}
