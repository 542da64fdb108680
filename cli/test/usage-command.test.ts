import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CliError } from '../src/cli-error.ts';
import { formatDailyUsage, formatUsage, runUsage } from '../src/commands/usage.ts';
import type { Schemas } from '@relay/user-api';
import { HELP_TEXT, parseCommand, USAGE_EXIT_CODE } from '../src/parse-command.ts';

const day = (date: string, tokens: number, costUsd: number, turns: number) => ({ day: date, tokens, inputTokens: tokens, outputTokens: 0, costUsd, turns });

/** Three days: claude (cost tracked) used something on the first and last, openai (tokens only) on the middle one. */
const SERIES: Schemas['DailyUsage'] = {
  days: ['2026-11-28', '2026-11-29', '2026-11-30'],
  providers: [
    { provider: 'claude', costTracked: true, days: [day('2026-11-28', 1500, 0.42, 2), day('2026-11-29', 0, 0, 0), day('2026-11-30', 1234567, 12.5, 9)] },
    { provider: 'openai', costTracked: false, days: [day('2026-11-28', 0, 0, 0), day('2026-11-29', 800, 0, 1), day('2026-11-30', 0, 0, 0)] },
  ],
};

describe('relay usage', () => {
  it("shows each provider's meters as an aligned table, and a Claude usage limit below", () => {
    const text = formatUsage({
      providers: [
        {
          provider: 'claude-api',
          status: 'ok',
          meters: [{ name: 'cost_usd', used: 12.5, allowance: 50, remaining: 37.5, utilization: 0.25, resetsAt: '2026-12-01T00:00:00.000Z' }],
        },
        {
          provider: 'claude',
          status: 'paused',
          pausedUntil: '2026-11-30T15:00:00.000Z',
          meters: [{ name: 'tokens', used: 1234567, allowance: null, remaining: null, utilization: null, resetsAt: null }],
        },
        { provider: 'codex', status: 'not_set_up', reason: 'no OPENAI_API_KEY', meters: [] },
      ],
      claudeUsageLimitPaused: true,
    });
    expect(text.split('\n')).toEqual([
      'PROVIDER    STATUS                                 METER     USED       ALLOWANCE  LEFT    RESETS                    WHY',
      'claude-api  ok                                     cost_usd  $12.50     $50.00     $37.50  2026-12-01T00:00:00.000Z',
      'claude      paused until 2026-11-30T15:00:00.000Z  tokens    1,234,567  -          -       -',
      'codex       not_set_up                             -         -          -          -       -                         no OPENAI_API_KEY',
      'A Claude usage limit holds the turns of claude and claude-api sessions now.',
    ]);
  });

  it('says when the relay has no providers', () => {
    expect(formatUsage({ providers: [], claudeUsageLimitPaused: false })).toBe('No providers on this relay.');
  });
});

describe('relay usage --days N', () => {
  it.each([
    [['usage', '--days', '7'], { kind: 'usage', json: false, days: 7 }],
    [['usage', '--days=30', '--json'], { kind: 'usage', json: true, days: 30 }],
    [['usage', '--days', '366'], { kind: 'usage', json: false, days: 366 }],
  ])('parses %j', (argv, expected) => {
    expect(parseCommand(argv)).toEqual(expected);
  });

  it.each([[['usage', '--days', '0']], [['usage', '--days', '367']], [['usage', '--days', '1.5']], [['usage', '--days', 'week']]])(
    'refuses %j as a usage error',
    (argv) => {
      expect(() => parseCommand(argv)).toThrow(new CliError('--days must be a whole number from 1 to 366', USAGE_EXIT_CODE));
    },
  );

  it('is in the help', () => {
    expect(HELP_TEXT).toContain('relay usage --days N');
  });

  it('prints a row per day, oldest first, zeros where nothing was used, and a total; a cost column only where cost is tracked', () => {
    expect(formatDailyUsage(SERIES).split('\n')).toEqual([
      'DAY         claude TOKENS  claude COST  openai TOKENS',
      '2026-11-28  1,500          $0.42        0',
      '2026-11-29  0              $0.00        800',
      '2026-11-30  1,234,567      $12.50       0',
      'TOTAL       1,236,067      $12.92       800',
    ]);
  });

  it('says when no provider has its use tracked', () => {
    expect(formatDailyUsage({ days: ['2026-11-30'], providers: [] })).toBe('No provider on this relay has its use tracked.');
  });

  it('asks the gateway for that many days with the user token, and prints the table', async () => {
    const asked: IncomingMessage[] = [];
    const server = createServer((request, response) => {
      asked.push(request);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(SERIES));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const out = new PassThrough();
      let text = '';
      out.on('data', (chunk: Buffer) => (text += chunk.toString()));
      const env = { RELAY_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, RELAY_TOKEN: 'rly_u_test' };
      expect(await runUsage({ json: false, days: 3 }, { env, out })).toBe(0);
      expect(asked.map((request) => [request.method, request.url, request.headers.authorization])).toEqual([
        ['GET', '/api/v1/usage/daily?days=3', 'Bearer rly_u_test'],
      ]);
      expect(text).toBe(`${formatDailyUsage(SERIES)}\n`);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
