// RelayClient against a real HTTP server standing in for a paired relay that answers too much: an answer longer
// than gRPC's message limit is refused as REMOTE_RELAY_OFFLINE without reading it all, whether it says its length
// or streams without one; an answer within the limit is read as usual.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_MESSAGE_BYTES } from '@relay/rpc';
import { RelayClient } from '../src/adapters/http/relay-client.ts';

let server: Server;
let baseUrl: string;
/** Bytes the server managed to write of the streamed answer before the client stopped reading. */
let streamedBytes = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    response.setHeader('content-type', 'application/json');
    if (request.url === '/relay/v1/declared') {
      // Says it is 64 MiB and never sends that much: the length alone is refused.
      response.setHeader('content-length', String(64 * 1024 * 1024));
      response.write('{"events":[');
      return;
    }
    if (request.url === '/relay/v1/streamed') {
      // No length: 64 KiB chunks of JSON string, for as long as the client reads.
      const chunk = `"${'x'.repeat(64 * 1024 - 3)}",`;
      response.write('[');
      const more = () => {
        while (!response.destroyed && streamedBytes < 64 * 1024 * 1024) {
          streamedBytes += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', more);
        }
        response.end('""]');
      };
      more();
      return;
    }
    response.end(JSON.stringify({ texts: ['y'.repeat(MAX_MESSAGE_BYTES - 100)] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('an answer from a paired relay', () => {
  const client = () => new RelayClient(baseUrl, 'rly_r_test_token');

  it('longer than the limit by its Content-Length is refused as offline', async () => {
    await expect(client().request({ method: 'GET', path: '/relay/v1/declared' })).rejects.toMatchObject({
      code: 'REMOTE_RELAY_OFFLINE',
      message: expect.stringContaining('more than 4 MiB'),
    });
  });

  it('streamed past the limit is refused as offline, and the rest is not read', async () => {
    await expect(client().request({ method: 'GET', path: '/relay/v1/streamed' })).rejects.toMatchObject({
      code: 'REMOTE_RELAY_OFFLINE',
      message: expect.stringContaining('more than 4 MiB'),
    });
    expect(streamedBytes).toBeLessThan(64 * 1024 * 1024);
  });

  it('within the limit is read whole', async () => {
    const response = await client().request({ method: 'GET', path: '/relay/v1/fits' });
    expect(response.status).toBe(200);
    expect((response.body as { texts: string[] }).texts[0]).toHaveLength(MAX_MESSAGE_BYTES - 100);
  });
});
