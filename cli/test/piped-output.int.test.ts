// `relay … --json | reader`: the CLI, run as a child process, hands the whole of a 1 MB answer to a reader
// that takes it slowly, before it exits (process.exit used to cut it at the pipe's 64 KiB).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const relayCli = fileURLToPath(new URL('../bin/relay.mjs', import.meta.url));
// About 1 MB of sessions, each with a long title.
const sessions = Array.from({ length: 2000 }, (_, index) => ({
  id: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
  title: `Session ${index} ${'x'.repeat(440)}`,
  provider: 'script',
  model: 'script-1',
  state: 'idle',
}));

let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url?.startsWith('/api/v1/sessions') !== true) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ sessions }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('piped --json output', () => {
  it('reaches a slow reader whole: 1 MB of relay sessions --json, parsed and compared', async () => {
    const child = spawn(process.execPath, [relayCli, 'sessions', '--scope', 'all', '--json'], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', RELAY_URL: url, RELAY_TOKEN: 'rly_u_test' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    // A reader that takes one chunk at a time and lets the pipe fill up between them. Its async iterator keeps a
    // 'readable' listener on the stream throughout: a paused stream with none when the child exits is resumed by
    // Node (flushStdio) and what it still holds is dropped, which a reader of read() calls lost at random.
    const exited = once(child, 'close');
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const [code] = await exited;
    const text = Buffer.concat(chunks).toString('utf8');

    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(text.length).toBeGreaterThan(1_000_000);
    expect(text).toBe(`${JSON.stringify({ sessions }, null, 2)}\n`);
  });
});
