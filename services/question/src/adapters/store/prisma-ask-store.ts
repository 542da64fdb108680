import { enqueue } from '@relay/bus';
import { QuestionEvents } from '@relay/proto/relay/bus-contracts';
import type { AskCreated, QuestionAnswered } from '@relay/proto/relay/question/v1/events';
import { ASK_STATUSES, type Ask, type AskStatus, type QuestionAnsweredEvent } from '../../domain/ask-entities.ts';
import type { PendingAsks } from '../../domain/asks.ts';
import type { AskStore } from '../../app/ports.ts';
import type { Ask as AskRow, Prisma, PrismaClient } from '../../generated/prisma/client.ts';

type Db = PrismaClient | Prisma.TransactionClient;

/**
 * The question service's asks in its own PostgreSQL database, through Prisma. `toQuestionAnswered` encodes the events
 * it writes to the outbox (main.ts passes adapters/grpc/wire's, beside the Ask message).
 */
export class PrismaAskStore implements AskStore {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly toQuestionAnswered: (event: QuestionAnsweredEvent) => QuestionAnswered,
    /** Encodes ask_created (notifications, docs/adr/0031); without it a new ask announces nothing. */
    private readonly toAskCreated?: (ask: Ask) => AskCreated,
  ) {}

  pendingCounts(askingSessionId: string, aboutSessionId: string): Promise<PendingAsks> {
    return counts(this.prisma, askingSessionId, aboutSessionId);
  }

  async create(ask: Ask, admit: (pending: PendingAsks) => void): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      // Two racing asks of one conversation (or about one session) count one after the other.
      for (const id of [...new Set([ask.askingSessionId, ask.aboutSessionId])].sort()) {
        await tx.$executeRawUnsafe('SELECT pg_advisory_xact_lock(hashtext($1))', `asks:${id}`);
      }
      admit(await counts(tx, ask.askingSessionId, ask.aboutSessionId));
      await tx.ask.create({ data: { ...ask, endedAt: null } });
      if (this.toAskCreated !== undefined) {
        const event = this.toAskCreated(ask);
        await enqueue(tx, QuestionEvents.ASK_CREATED, event, { id: event.eventId });
      }
    });
  }

  async find(askId: string): Promise<Ask | undefined> {
    const row = await this.prisma.ask.findUnique({ where: { id: askId } });
    return row === null ? undefined : toAsk(row);
  }

  async saveEnd(ask: Ask, event: QuestionAnsweredEvent | undefined): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      // Conditional on pending: of an answer and a withdrawal racing, only one writes.
      const { count } = await tx.ask.updateMany({
        where: { id: ask.id, status: 'pending' },
        data: { status: ask.status, answer: ask.answer, choice: ask.choice, via: ask.via, endedAt: ask.endedAt ?? null },
      });
      if (count === 0) return false;
      if (event !== undefined) {
        await enqueue(tx, QuestionEvents.QUESTION_ANSWERED, this.toQuestionAnswered(event), { id: event.eventId });
      }
      return true;
    });
  }

  async publishRemoteAnswer(event: QuestionAnsweredEvent): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const published = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM outbox WHERE id = ${event.eventId} FOR UPDATE`;
      if (published.length > 0) return false;
      await enqueue(tx, QuestionEvents.QUESTION_ANSWERED, this.toQuestionAnswered(event), { id: event.eventId });
      return true;
    });
  }

  async endPending(sessionId: string, now: Date): Promise<number> {
    const { count } = await this.prisma.ask.updateMany({
      where: { status: 'pending', OR: [{ askingSessionId: sessionId }, { aboutSessionId: sessionId }] },
      data: { status: 'ended', endedAt: now },
    });
    return count;
  }
}

async function counts(db: Db, askingSessionId: string, aboutSessionId: string): Promise<PendingAsks> {
  const [asking, about] = await Promise.all([
    db.ask.count({ where: { askingSessionId, status: 'pending' } }),
    db.ask.count({ where: { aboutSessionId, status: 'pending' } }),
  ]);
  return { asking, about };
}

/** An asks row (as Prisma's client reads it, or PgAskReads with the same names) as an Ask. */
export function toAsk(row: AskRow): Ask {
  if (!(ASK_STATUSES as readonly string[]).includes(row.status)) throw new Error(`asks.status holds unknown value "${row.status}"`);
  const options = row.options;
  if (!Array.isArray(options) || !options.every((item) => typeof item === 'string')) throw new Error('asks.options is not a list of strings');
  return {
    id: row.id,
    userId: row.userId,
    askingSessionId: row.askingSessionId,
    aboutSessionId: row.aboutSessionId,
    question: row.question,
    options,
    recommendation: row.recommendation,
    detail: row.detail,
    status: row.status as AskStatus,
    answer: row.answer,
    choice: row.choice,
    via: row.via,
    createdAt: row.createdAt,
    endedAt: row.endedAt ?? undefined,
  };
}
