/**
 * Usage over time: the daily series read from the real ledger (PostgreSQL) with an explicit `now`. Days run in UTC
 * whatever the database session's time zone (this one's is Los Angeles): a turn at 23:59:59.999 and one at
 * 00:00:00.000 fall on two days; days with nothing are zeros; a turn before the first day is left out; a provider
 * whose cost is not tracked reads US$0; a provider no longer configured still shows what it used. The catalogue is a
 * fake of our own port.
 */
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '@relay/errors';
import { createTestDatabase, type TestDatabase } from '@relay/testing';
import type { ProviderInfo } from '../../src/domain/catalogue/provider-catalogue.ts';
import type { TurnUsage } from '../../src/domain/usage/usage.ts';
import { getDailyUsage } from '../../src/app/usage/get-daily-usage.ts';
import { toDailyUsageMessage } from '../../src/adapters/grpc/wire/daily-usage-wire.ts';
import { PrismaClient } from '../../src/generated/prisma/client.ts';
import { PrismaUsageLedger } from '../../src/adapters/store/prisma-usage-ledger.ts';

const migrationsDir = fileURLToPath(new URL('../../prisma/migrations', import.meta.url));
const NOW = new Date('2026-11-30T10:00:00.000Z');

const provider = (id: string, family: ProviderInfo['family'], available = true): ProviderInfo => ({
  id,
  name: id,
  family,
  available,
  reason: available ? '' : 'no credentials',
  reasonCode: '',
  defaultModel: 'm',
  models: ['m'],
  modelsKnown: true,
  efforts: [],
});
/** claude (cost tracked), openai without prices (tokens only), script (not tracked), deepseek (not set up, unused). */
const catalogue = {
  providers: async () => [provider('claude', 'claude'), provider('openai', 'openai'), provider('script', 'script'), provider('deepseek', 'deepseek', false)],
};

let database: TestDatabase;
let prisma: PrismaClient;
let ledger: PrismaUsageLedger;

const turn = (messageId: string, providerId: string, recordedAt: string, inputTokens: number, outputTokens: number, costUsd: number | null): TurnUsage => ({
  messageId,
  sessionId: 's-1',
  provider: providerId,
  model: 'm',
  inputTokens,
  outputTokens,
  costUsd,
  recordedAt: new Date(recordedAt),
});

beforeAll(async () => {
  database = await createTestDatabase({ migrationsDir });
  const url = new URL(database.url);
  url.searchParams.set('options', '-c TimeZone=America/Los_Angeles');
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url.toString() }) });
  ledger = new PrismaUsageLedger(prisma);
  for (const usage of [
    turn('before', 'claude', '2026-11-23T23:59:59.999Z', 9_999, 9_999, 99),
    turn('first-day', 'claude', '2026-11-24T00:00:00.000Z', 100, 10, 0.5),
    turn('late', 'claude', '2026-11-26T23:59:59.999Z', 200, 20, 1),
    turn('midnight', 'claude', '2026-11-27T00:00:00.000Z', 300, 30, 2),
    turn('noon', 'claude', '2026-11-27T12:00:00.000Z', 1_000, 100, 0.25),
    turn('tokens-only', 'openai', '2026-11-30T09:59:00.000Z', 50, 5, null),
    turn('gone', 'retired', '2026-11-25T08:00:00.000Z', 7, 3, 0.01),
  ]) {
    await ledger.record(usage);
  }
});

afterAll(async () => {
  await prisma?.$disconnect();
  await database?.drop();
});

const deps = () => ({ catalogue, ledger, priced: [] });
const zero = (day: string) => ({ day, inputTokens: 0, outputTokens: 0, costUsd: 0, turns: 0 });

describe('the daily usage series', () => {
  it('reads through a database session whose time zone is not UTC', async () => {
    expect(await prisma.$queryRaw<{ TimeZone: string }[]>`SHOW TimeZone`).toEqual([{ TimeZone: 'America/Los_Angeles' }]);
  });

  it('answers every UTC day of the last 7 up to today, per tracked provider, with zeros where nothing was used', async () => {
    const report = await getDailyUsage(deps(), { days: 7 }, NOW);
    expect(report.days).toEqual(['2026-11-24', '2026-11-25', '2026-11-26', '2026-11-27', '2026-11-28', '2026-11-29', '2026-11-30']);
    expect(report.providers.map((p) => p.provider)).toEqual(['claude', 'openai', 'retired']);
    expect(report.providers[0]).toEqual({
      provider: 'claude',
      costTracked: true,
      days: [
        { day: '2026-11-24', inputTokens: 100, outputTokens: 10, costUsd: 0.5, turns: 1 },
        zero('2026-11-25'),
        // 23:59:59.999 UTC is still the 26th; midnight UTC is the 27th's, with the noon turn.
        { day: '2026-11-26', inputTokens: 200, outputTokens: 20, costUsd: 1, turns: 1 },
        { day: '2026-11-27', inputTokens: 1_300, outputTokens: 130, costUsd: 2.25, turns: 2 },
        zero('2026-11-28'),
        zero('2026-11-29'),
        zero('2026-11-30'),
      ],
    });
    expect(report.providers[1]).toMatchObject({ provider: 'openai', costTracked: false });
    expect(report.providers[1]!.days.at(-1)).toEqual({ day: '2026-11-30', inputTokens: 50, outputTokens: 5, costUsd: 0, turns: 1 });
    expect(report.providers[1]!.days.slice(0, 6).every((day) => day.turns === 0 && day.inputTokens === 0)).toBe(true);
    expect(report.providers[2]!.days.find((day) => day.day === '2026-11-25')).toEqual({
      day: '2026-11-25',
      inputTokens: 7,
      outputTokens: 3,
      costUsd: 0.01,
      turns: 1,
    });
  });

  it('one day is today alone; the day before the window is never counted', async () => {
    const report = await getDailyUsage(deps(), { days: 1 }, new Date('2026-11-27T00:00:00.000Z'));
    expect(report.days).toEqual(['2026-11-27']);
    expect(report.providers.find((p) => p.provider === 'claude')!.days).toEqual([
      { day: '2026-11-27', inputTokens: 1_300, outputTokens: 130, costUsd: 2.25, turns: 2 },
    ]);
    // Nothing of openai's or retired's on that day: openai (set up) shows zeros; retired (not configured) is left out.
    expect(report.providers.map((p) => p.provider)).toEqual(['claude', 'openai']);
  });

  it('0 days means the last 30, oldest first, today last', async () => {
    const report = await getDailyUsage(deps(), { days: 0 }, NOW);
    expect(report.days).toHaveLength(30);
    expect([report.days[0], report.days.at(-1)]).toEqual(['2026-11-01', '2026-11-30']);
    const claude = report.providers.find((p) => p.provider === 'claude')!;
    expect(claude.days).toHaveLength(30);
    expect(claude.days.find((day) => day.day === '2026-11-23')).toEqual({ day: '2026-11-23', inputTokens: 9_999, outputTokens: 9_999, costUsd: 99, turns: 1 });
  });

  it('refuses a number of days out of range with REMOTE_RELAY_INVALID_INPUT', async () => {
    for (const days of [-1, 367]) {
      const refused = await getDailyUsage(deps(), { days }, NOW).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(AppError);
      expect((refused as AppError).code).toBe('REMOTE_RELAY_INVALID_INPUT');
    }
  });

  it('goes on the wire with tokens as int64 strings', async () => {
    const message = toDailyUsageMessage(await getDailyUsage(deps(), { days: 2 }, NOW));
    expect(message.providers[0]!.days).toEqual([
      { day: '2026-11-29', inputTokens: '0', outputTokens: '0', costUsd: 0, turns: 0 },
      { day: '2026-11-30', inputTokens: '0', outputTokens: '0', costUsd: 0, turns: 0 },
    ]);
    expect(message.providers[1]!.days[1]).toMatchObject({ inputTokens: '50', outputTokens: '5' });
  });
});
