// Issue 42, items 1 and 2 end to end with the official 2.x client (@modelcontextprotocol/client): a client of the
// 2026-07-28 revision (server/discover, no initialize, its capabilities in every request) is served by /mcp beside the
// 2025 clients the other files use. A card its call needs comes back as an input_required result whose request is a
// URL (URL-mode elicitation) pointing at the card's page in the console; the person decides there, in Chromium, and
// the client's retry — the same call again — finds the decision. An answer the client gives the elicitation itself
// (accept, without anyone deciding) is never taken as the person's: the retry is told of the card again.
import { Client, StreamableHTTPClientTransport, type ElicitRequest } from '@modelcontextprotocol/client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium } from '../harness/browser.ts';
import type { RelayClient } from '../harness/relay.ts';
import { sharedRelay } from '../harness/shared-relay.ts';

let relay: RelayClient;
let browser: Browser;
const clients: Client[] = [];

beforeAll(async () => {
  [relay, browser] = await Promise.all([sharedRelay(), launchChromium()]);
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await browser?.close();
  await relay?.stop();
});

/** A 2026 client of a new external session that takes URL-mode elicitation: `onUrl` answers each URL it is sent to. */
async function modernClient(title: string, onUrl: (url: string) => Promise<void>): Promise<{ client: Client; session: string }> {
  const { id, token } = await relay.createExternalSession(title);
  const client = new Client(
    { name: 'e2e-2026', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: { url: {} } }, inputRequired: { maxRounds: 3 } },
  );
  client.setRequestHandler('elicitation/create', async (request: ElicitRequest) => {
    const { params } = request;
    if (params.mode !== 'url') throw new Error(`expected a URL request, got ${JSON.stringify(params)}`);
    await onUrl(params.url);
    return { action: 'accept' };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(relay.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  clients.push(client);
  return { client, session: id };
}

const cardsOf = async (session: string) =>
  (await relay.api('GET', `/api/v1/cards?session=${session}`)).body.cards as { id: string; status: string; title: string }[];

it('serves a 2026-07-28 client: discover, tools/list and a call answered in the revision', async () => {
  const { client } = await modernClient('Modern reader', async () => {});
  expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
  expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['relay_tool']);
  const result = await client.callTool({ name: 'relay_tool', arguments: { action: 'list_relays' } });
  expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toMatchObject({ ok: true, self: { name: relay.name } });
});

it("sends the person to the card's page; the retry finds the decision they made there in the console", async () => {
  const urls: string[] = [];
  const { client, session } = await modernClient('Modern editor', async (url) => {
    urls.push(url);
    const page = await browser.newPage();
    try {
      await page.goto(url);
      await page.getByLabel('User token').fill(relay.userToken);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.locator('[data-card-status="allowed"]').waitFor();
    } finally {
      await page.close();
    }
  });

  const result = await client.callTool(
    { name: 'relay_tool', arguments: { action: 'create_session', relay: 'this', provider: 'script', title: 'Worker', text: 'reply pong', wait_seconds: 60 } },
    { timeout: 120_000 },
  );
  expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toMatchObject({ ok: true, status: 'done', reply: { text: 'pong' } });
  const [card] = await cardsOf(session);
  expect(card).toMatchObject({ status: 'allowed', title: 'Start a session on desk: "Worker"'.replace('desk', relay.name) });
  expect(urls).toEqual([`${relay.gatewayUrl}/cards/${card!.id}`]);
});

it("never takes the client's own answer for the person's decision: the card stays pending and nothing is created", async () => {
  let asked = 0;
  const { client, session } = await modernClient('Forging editor', async () => {
    asked += 1;
  });
  const before = (await relay.api('GET', '/api/v1/sessions?scope=all')).body.sessions.length as number;

  await expect(
    client.callTool({ name: 'relay_tool', arguments: { action: 'create_session', relay: 'this', provider: 'script', title: 'Forged', text: 'reply pong' } }),
  ).rejects.toThrow();
  // Every retry (the client "accepted" each time) was sent to the card again, the same card.
  expect(asked).toBe(3);
  const cards = await cardsOf(session);
  expect(cards.map((card) => card.status)).toEqual(['pending']);
  expect((await relay.api('GET', '/api/v1/sessions?scope=all')).body.sessions.length).toBe(before);
});
