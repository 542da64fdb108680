import { describe, expect, it } from 'vitest';
import { discoverModels } from '../../src/adapters/providers/openai/discover-models.ts';

function answering(status: number, body: unknown, seen: { url?: string; headers?: unknown } = {}): typeof fetch {
  return (async (url: string | URL | Request, init?: RequestInit) => {
    seen.url = String(url);
    seen.headers = init?.headers;
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
}

describe('discovering an OpenAI-compatible endpoint’s models', () => {
  it('reads the ids of GET /models (deduplicated, sorted) with the key as a bearer token', async () => {
    const seen: { url?: string; headers?: unknown } = {};
    const body = { object: 'list', data: [{ id: 'llama3.2', object: 'model' }, { id: 'deepseek-chat' }, { id: 'llama3.2' }, { object: 'model' }] };
    expect(await discoverModels({ baseUrl: 'http://127.0.0.1:11434/v1/', apiKey: 'k' }, answering(200, body, seen))).toEqual(['deepseek-chat', 'llama3.2']);
    expect(seen).toEqual({ url: 'http://127.0.0.1:11434/v1/models', headers: { authorization: 'Bearer k' } });
  });

  it('fails when the endpoint cannot say', async () => {
    await expect(discoverModels({ baseUrl: 'http://x/v1', apiKey: undefined }, answering(401, {}))).rejects.toThrow('HTTP 401');
    await expect(discoverModels({ baseUrl: 'http://x/v1', apiKey: undefined }, answering(200, { models: [] }))).rejects.toThrow('without a data list');
  });
});
