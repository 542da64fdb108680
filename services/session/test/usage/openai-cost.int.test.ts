/**
 * An OpenAI-compatible endpoint reports tokens only; the relay prices them from the configured per-model prices.
 * The real OpenAI provider runs turns against a loopback server speaking the streamed wire format (usage with
 * cached prompt tokens), records them in the real ledger (PostgreSQL), and the usage report meters the cost. A model
 * without a price is recorded with no cost, and a provider without prices has no cost meter. The gateway's MCP
 * endpoint is a fake of our own port.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '@relay/clock';
import { createTestDatabase, type TestDatabase } from '@relay/testing';
import { loadConfig, openAIPrices } from '../../src/config.ts';
import type { ProviderInfo } from '../../src/domain/catalogue/provider-catalogue.ts';
import { getUsage } from '../../src/app/usage/get-usage.ts';
import { PrismaClient } from '../../src/generated/prisma/client.ts';
import { OpenAIProvider } from '../../src/adapters/providers/openai/openai-provider.ts';
import type { TurnInput } from '../../src/app/turns/provider.ts';
import { PrismaUsageLedger } from '../../src/adapters/store/prisma-usage-ledger.ts';
import { startFakeMcpGateway, type FakeMcpGateway } from '../turns/fake-mcp-gateway.ts';

/** A service starts only with its gRPC credentials (relay up makes them); the tests give a valid set. */
const CREDENTIALS = { RELAY_SERVICE_TOKEN: 't'.repeat(43), RELAY_SERVICE_KEYS: `gateway:${'0'.repeat(64)}` };

const migrationsDir = fileURLToPath(new URL('../../prisma/migrations', import.meta.url));
const clock = new ManualClock('2026-11-30T10:00:00.000Z');

let database: TestDatabase;
let prisma: PrismaClient;
let ledger: PrismaUsageLedger;
let gateway: FakeMcpGateway;
let endpoint: Server;
let baseUrl: string;

/** One streamed answer, then the usage chunk as OpenAI sends it with include_usage (cached tokens in prompt_tokens_details). */
function answer(model: string): string {
  const chunk = (body: Record<string, unknown>) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1_764_000_000, model, ...body })}\n\n`;
  return (
    chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: 'Done.' }, finish_reason: null }] }) +
    chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }) +
    chunk({ choices: [], usage: { prompt_tokens: 10_000, completion_tokens: 2_000, total_tokens: 12_000, prompt_tokens_details: { cached_tokens: 8_000 } } }) +
    'data: [DONE]\n\n'
  );
}

beforeAll(async () => {
  database = await createTestDatabase({ migrationsDir });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
  ledger = new PrismaUsageLedger(prisma);
  gateway = await startFakeMcpGateway();
  endpoint = createServer((request, response) => {
    void (async () => {
      let text = '';
      for await (const part of request) text += part;
      const body = JSON.parse(text) as { model: string };
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(answer(body.model));
    })();
  });
  await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  await new Promise((resolve) => endpoint?.close(resolve));
  await gateway?.close();
  await prisma?.$disconnect();
  await database?.drop();
});

function turn(sessionId: string, model: string, messageId: string): TurnInput {
  return {
    session: { id: sessionId, userId: 'u-1', title: 'Cost', provider: 'grok', model, effort: '', mode: 'agent', cwd: '/tmp' },
    message: { id: messageId, text: 'Fix it.' },
    token: 'session-token',
    signal: new AbortController().signal,
    clock,
    emit: async () => undefined,
  };
}

const info = (id: string): ProviderInfo => ({
  id,
  name: id,
  family: 'openai',
  available: true,
  reason: '',
  reasonCode: '',
  defaultModel: '',
  models: [],
  modelsKnown: true,
  efforts: [],
});

describe('the cost of an OpenAI-compatible endpoint’s turns', () => {
  it('is its tokens at the configured price, reaches the usage report, and is not reported for a model without a price', async () => {
    // Configured as an operator would: grok prices grok-4 only; ollama has no prices.
    const config = loadConfig({
      ...CREDENTIALS,
      DATABASE_URL: database.url,
      RELAY_OPENAI_ENDPOINTS: JSON.stringify([
        {
          id: 'grok',
          baseUrl,
          models: ['grok-4', 'grok-4-mini'],
          prices: { 'grok-4': { inputUsdPerMTok: 3, outputUsdPerMTok: 15, cachedInputUsdPerMTok: 0.75 } },
        },
        { id: 'ollama', baseUrl, models: ['llama4'] },
      ]),
      RELAY_USAGE_ALLOWANCES: JSON.stringify({ grok: { monthlyUsd: 1 } }),
    });
    const prices = openAIPrices(config);
    const grok = new OpenAIProvider({ id: 'grok', baseUrl, apiKey: undefined, gatewayUrl: gateway.url, usage: ledger, prices: prices['grok']! });

    expect(await grok.startTurn(turn('s-1', 'grok-4', 'm-priced'))).toEqual({ text: 'Done.', model: 'grok-4' });
    expect(await grok.startTurn(turn('s-1', 'grok-4-mini', 'm-unpriced'))).toEqual({ text: 'Done.', model: 'grok-4-mini' });

    // 2,000 uncached input × $3 + 8,000 cached × $0.75 + 2,000 output × $15, per million: US$0.042.
    const rows = await prisma.turnUsage.findMany({ orderBy: { model: 'asc' } });
    expect(rows.map((row) => ({ model: row.model, inputTokens: row.inputTokens, outputTokens: row.outputTokens, costUsd: row.costUsd }))).toEqual([
      { model: 'grok-4', inputTokens: 10_000, outputTokens: 2_000, costUsd: expect.closeTo(0.042, 9) },
      { model: 'grok-4-mini', inputTokens: 10_000, outputTokens: 2_000, costUsd: null },
    ]);

    const priced = Object.entries(prices).flatMap(([provider, modelPrices]) => (modelPrices === undefined ? [] : [provider]));
    const report = await getUsage(
      { catalogue: { providers: async () => [info('grok'), info('ollama')] }, ledger, allowances: config.RELAY_USAGE_ALLOWANCES, priced },
      clock.now(),
    );
    expect(report.providers.find((p) => p.provider === 'grok')).toMatchObject({
      status: 'ok',
      meters: [
        { name: 'tokens', used: 24_000, allowance: null },
        { name: 'cost_usd', used: 0.042, allowance: 1, remaining: 0.958, utilization: expect.closeTo(0.042, 9) },
      ],
    });
    // No prices: tokens only, no cost meter reading a made-up US$0.
    expect(report.providers.find((p) => p.provider === 'ollama')).toMatchObject({ status: 'ok', meters: [{ name: 'tokens', used: 0 }] });
    expect(report.providers.find((p) => p.provider === 'ollama')!.meters).toHaveLength(1);
  });
});
