import type { Budget, BudgetSetBy, BudgetState } from '../../domain/budgets/budget.ts';
import type { RemoteTreeReport, RemoteTreeSession, TreeUsageRow } from '../../domain/budgets/tree-usage.ts';
import type { BudgetStore } from '../../app/budgets/ports.ts';
import { STARTED_REMOTE_GRANT } from '../../app/sessions/remote-sessions.ts';
import type { PrismaClient } from '../../generated/prisma/client.ts';

type BudgetRow = {
  sessionId: string;
  userId: string;
  setBy: string;
  costUsd: number | null;
  tokens: number | null;
  minutes: number | null;
  sessions: number | null;
  startedAt: Date;
  state: string;
  warned: boolean;
  cardId: string | null;
};

// The tree under a session: itself, and down through started_by_session_id (sessions_started_by_session_id_idx).
const TREE = `WITH RECURSIVE tree(id) AS (
    SELECT id FROM sessions WHERE id = $1
    UNION
    SELECT s.id FROM sessions s JOIN tree ON s.started_by_session_id = tree.id)`;

// A ledger row's turn has ended (or is gone: the ledger outlives turns).
const FINISHED = `t.status IS NULL OR t.status NOT IN ('queued', 'running', 'waiting_for_answer')`;

/** Budgets in the session service's database (budgets), measured on its sessions and usage ledger (turn_usage). */
export class PrismaBudgetStore implements BudgetStore {
  constructor(
    private readonly prisma: PrismaClient,
    /** This relay's name: the relay of every session the ledger here holds. */
    private readonly relayName: string,
  ) {}

  async find(sessionId: string): Promise<Budget | undefined> {
    const row = await this.prisma.budget.findUnique({ where: { sessionId } });
    return row === null ? undefined : toBudget(row);
  }

  async save(budget: Budget, now: Date): Promise<void> {
    const data = toRow(budget, now);
    await this.prisma.budget.upsert({ where: { sessionId: budget.sessionId }, create: data, update: data });
  }

  async transition(current: Budget, next: Budget, now: Date): Promise<boolean> {
    const { count } = await this.prisma.budget.updateMany({
      where: { sessionId: current.sessionId, state: current.state, warned: current.warned, cardId: current.cardId },
      data: toRow(next, now),
    });
    return count === 1;
  }

  async remove(sessionId: string): Promise<boolean> {
    const { count } = await this.prisma.budget.deleteMany({ where: { sessionId } });
    return count === 1;
  }

  async governing(sessionId: string): Promise<Budget[]> {
    // The session and its ancestors up through started_by_session_id, nearest first (depth).
    const rows = await this.prisma.$queryRawUnsafe<(BudgetRow & { depth: number })[]>(
      `WITH RECURSIVE up(id, parent, depth) AS (
           SELECT id, started_by_session_id, 0 FROM sessions WHERE id = $1
           UNION
           SELECT s.id, s.started_by_session_id, up.depth + 1 FROM sessions s JOIN up ON s.id = up.parent)
       SELECT b.session_id AS "sessionId", b.user_id AS "userId", b.set_by AS "setBy", b.cost_usd AS "costUsd", b.tokens,
              b.minutes, b.sessions, b.started_at AS "startedAt", b.state, b.warned, b.card_id AS "cardId", up.depth
         FROM up JOIN budgets b ON b.session_id = up.id
        ORDER BY up.depth`,
      sessionId,
    );
    return rows.map(toBudget);
  }

  async byCard(cardId: string): Promise<Budget | undefined> {
    const row = await this.prisma.budget.findFirst({ where: { cardId } });
    return row === null ? undefined : toBudget(row);
  }

  async minutesRunOut(now: Date): Promise<Budget[]> {
    const rows = await this.prisma.$queryRaw<BudgetRow[]>`
      SELECT session_id AS "sessionId", user_id AS "userId", set_by AS "setBy", cost_usd AS "costUsd", tokens, minutes, sessions,
             started_at AS "startedAt", state, warned, card_id AS "cardId"
        FROM budgets
       WHERE state = 'active' AND minutes IS NOT NULL
         AND started_at + minutes * interval '1 minute' <= ${now.toISOString()}::timestamp(3)`;
    return rows.map(toBudget);
  }

  async treeUsage(sessionId: string): Promise<TreeUsageRow[]> {
    const rows = await this.prisma.$queryRawUnsafe<
      {
        session_id: string;
        provider: string;
        relay: string | null;
        turns: number;
        input_tokens: number;
        output_tokens: number;
        cost_usd: number;
        largest_cost: number;
        largest_tokens: number;
      }[]
    >(
      `${TREE}
       SELECT u.session_id, u.provider, NULL AS relay, COUNT(*)::int AS turns,
              SUM(u.input_tokens)::float8 AS input_tokens, SUM(u.output_tokens)::float8 AS output_tokens,
              COALESCE(SUM(u.cost_usd), 0)::float8 AS cost_usd,
              -- One turn's worth is a finished turn's: a running turn's use so far (a provider that records as it
              -- goes) must not stretch the bound it is measured against.
              COALESCE(MAX(u.cost_usd) FILTER (WHERE ${FINISHED}), 0)::float8 AS largest_cost,
              COALESCE(MAX(u.input_tokens + u.output_tokens) FILTER (WHERE ${FINISHED}), 0)::float8 AS largest_tokens
         FROM turn_usage u JOIN tree ON u.session_id = tree.id
         LEFT JOIN turns t ON t.message_id = u.message_id
        GROUP BY u.session_id, u.provider
       UNION ALL
       -- A paired relay reports sums only: one turn's worth there is not known here (0).
       SELECT x."sessionId", x.provider, r.relay, x.turns, x."inputTokens", x."outputTokens", x."costUsd", 0, 0
         FROM remote_tree_reports r JOIN tree ON r.session_id = tree.id,
              jsonb_to_recordset(r.rows) AS x("sessionId" text, provider text, turns int, "inputTokens" float8, "outputTokens" float8, "costUsd" float8)
        ORDER BY 3 NULLS FIRST, 1, 2`,
      sessionId,
    );
    return rows.map((row) => ({
      sessionId: row.session_id,
      provider: row.provider,
      relay: row.relay ?? this.relayName,
      turns: row.turns,
      inputTokens: row.input_tokens,
      outputTokens: row.output_tokens,
      costUsd: row.cost_usd,
      largestTurnCostUsd: row.largest_cost,
      largestTurnTokens: row.largest_tokens,
    }));
  }

  async sessionsStarted(sessionId: string): Promise<number> {
    const [row] = await this.prisma.$queryRawUnsafe<{ here: number; paired: number; beyond: number }[]>(
      `${TREE}
       SELECT (SELECT COUNT(*) FROM tree)::int - 1 AS here,
              (SELECT COUNT(*) FROM conversation_grants g JOIN tree ON g.session_id = tree.id WHERE g.kind = $2)::int AS paired,
              (SELECT COALESCE(SUM(r.sessions_started), 0) FROM remote_tree_reports r JOIN tree ON r.session_id = tree.id)::int AS beyond`,
      sessionId,
      STARTED_REMOTE_GRANT,
    );
    return row === undefined ? 0 : Math.max(0, row.here) + row.paired + row.beyond;
  }

  async remoteSessions(sessionId: string): Promise<RemoteTreeSession[]> {
    const rows = await this.prisma.$queryRawUnsafe<{ session_id: string; relay: string }[]>(
      `${TREE}
       SELECT g.session_id, g.relay FROM conversation_grants g JOIN tree ON g.session_id = tree.id WHERE g.kind = $2 ORDER BY g.created_at, g.relay`,
      sessionId,
      STARTED_REMOTE_GRANT,
    );
    // The grant names "<relay>/<session id>"; a relay's name has no "/" in it, a session id may.
    return rows.flatMap(({ session_id, relay }) => {
      const slash = relay.indexOf('/');
      return slash <= 0 ? [] : [{ startedBySessionId: session_id, relay: relay.slice(0, slash), sessionId: relay.slice(slash + 1) }];
    });
  }

  async noteRemoteReport(report: RemoteTreeReport, now: Date): Promise<boolean> {
    const started = await this.prisma.conversationGrant.findUnique({
      where: { sessionId_kind_relay: { sessionId: report.sessionId, kind: STARTED_REMOTE_GRANT, relay: `${report.relay}/${report.remoteSessionId}` } },
    });
    if (started === null) return false;
    const sum = (of: (row: RemoteTreeReport['rows'][number]) => number) => report.rows.reduce((total, row) => total + of(row), 0);
    // Replaced unless the kept report reads more in any meter (it was read later): reports read at once — a call's
    // result and a fetch — may arrive in either order.
    const kept = await this.prisma.$executeRaw`
      INSERT INTO remote_tree_reports (relay, remote_session_id, session_id, rows, sessions_started, reported_at)
      VALUES (${report.relay}, ${report.remoteSessionId}, ${report.sessionId}, ${JSON.stringify(report.rows)}::jsonb, ${report.sessionsStarted},
              ${now.toISOString()}::timestamp(3))
      ON CONFLICT (relay, remote_session_id) DO UPDATE
         SET session_id = EXCLUDED.session_id, rows = EXCLUDED.rows, sessions_started = EXCLUDED.sessions_started, reported_at = EXCLUDED.reported_at
       WHERE remote_tree_reports.sessions_started <= EXCLUDED.sessions_started
         AND (SELECT COALESCE(SUM((x->>'turns')::float8), 0) FROM jsonb_array_elements(remote_tree_reports.rows) x) <= ${sum((row) => row.turns)}
         AND (SELECT COALESCE(SUM((x->>'inputTokens')::float8 + (x->>'outputTokens')::float8), 0) FROM jsonb_array_elements(remote_tree_reports.rows) x)
             <= ${sum((row) => row.inputTokens + row.outputTokens)}
         AND (SELECT COALESCE(SUM((x->>'costUsd')::float8), 0) FROM jsonb_array_elements(remote_tree_reports.rows) x) <= ${sum((row) => row.costUsd) + 1e-9}`;
    return kept === 1;
  }

  async startingRelay(sessionId: string): Promise<string | undefined> {
    // The session's first message is the prompt it was started with; a paired relay's carries its provenance, whose
    // origin relay the receiving gateway sets to the caller as paired (never what the caller claims).
    const [first] = await this.prisma.$queryRaw<{ relay: string | null }[]>`
      SELECT provenance->>'originRelay' AS relay FROM messages WHERE session_id = ${sessionId} ORDER BY seq LIMIT 1`;
    const relay = first?.relay ?? '';
    return relay === '' || relay === this.relayName ? undefined : relay;
  }

  async stopRunningTurns(sessionId: string): Promise<number> {
    return this.prisma.$executeRawUnsafe(
      `${TREE}
       UPDATE turns SET stop_requested = true
        WHERE session_id IN (SELECT id FROM tree) AND status IN ('running', 'waiting_for_answer') AND NOT stop_requested`,
      sessionId,
    );
  }
}

function toBudget(row: BudgetRow): Budget {
  return {
    sessionId: row.sessionId,
    userId: row.userId,
    setBy: row.setBy as BudgetSetBy,
    limits: { costUsd: row.costUsd, tokens: row.tokens, minutes: row.minutes, sessions: row.sessions },
    startedAt: row.startedAt,
    state: row.state as BudgetState,
    warned: row.warned,
    cardId: row.cardId,
  };
}

function toRow(budget: Budget, now: Date) {
  const { limits, ...rest } = budget;
  return { ...rest, ...limits, updatedAt: now };
}
