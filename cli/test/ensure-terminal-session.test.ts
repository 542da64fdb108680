// relay up's start-up read of the Terminal session (issue 39, item 6): just after start-up the gateway may answer
// 503 "cannot check tokens right now" while its channel to the session service connects, though both passed their
// health checks. That read is tried again for a while rather than stopping the whole relay; other refusals, and a
// 503 that lasts, still fail. A gateway on loopback answers as scripted.
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeCredentials } from '../src/credentials-file.ts';
import { ensureTerminalSession } from '../src/ensure-terminal-session.ts';
import { Reporter } from '../src/reporter.ts';

const reporter = new Reporter({ json: false, color: false, level: 'silent', out: process.stdout, err: process.stderr });
let server: Server | undefined;
let folder: string | undefined;

afterEach(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  if (folder) rmSync(folder, { recursive: true, force: true });
});

/** A gateway whose read of the Terminal session answers each status in turn (the last one from then on). */
async function gateway(statuses: number[]): Promise<{ url: string; asked: () => number; paths: string[] }> {
  let asked = 0;
  const paths: string[] = [];
  server = createServer((request, response) => {
    paths.push(request.url ?? '');
    const status = statuses[Math.min(asked, statuses.length - 1)]!;
    asked += 1;
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify(
        status === 200
          ? { session: { id: 'sess_terminal', archived: false } }
          : { code: 'REMOTE_RELAY_INTERNAL', error: 'This relay cannot check tokens right now; try again in a moment.' },
      ),
    );
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked: () => asked, paths };
}

function credentialsFile(): string {
  folder = mkdtempSync(join(tmpdir(), 'relay-cli-terminal-'));
  const path = join(folder, 'credentials.json');
  writeCredentials(path, { userId: 'u1', userToken: 'rly_u_x', terminal: { sessionId: 'sess_terminal', token: 'rly_s_terminal', title: 'Terminal' } });
  return path;
}

const options = (gatewayUrl: string, file: string, unavailableForMs = 10_000) => ({
  credentialsFile: file,
  gatewayUrl,
  sessionGrpcAddress: '127.0.0.1:1',
  gatewayAuth: { token: '', keys: '' } as never,
  userName: 'me',
  reporter,
  unavailableForMs,
});

describe('ensureTerminalSession right after start-up', () => {
  it('reads again while the gateway cannot check tokens yet, then goes on', async () => {
    const { url, asked, paths } = await gateway([503, 503, 200]);
    await expect(ensureTerminalSession(options(url, credentialsFile()))).resolves.toEqual({ token: 'rly_s_terminal', title: 'Terminal', userToken: 'rly_u_x' });
    expect(asked()).toBe(3);
    // The Terminal session is read by its id: the listing is a page, which need not hold it.
    expect(new Set(paths)).toEqual(new Set(['/api/v1/sessions/sess_terminal?last=1']));
  });

  it('gives up when the gateway stays unable past the bound', async () => {
    const { url } = await gateway([503]);
    await expect(ensureTerminalSession(options(url, credentialsFile(), 600))).rejects.toMatchObject({ status: 503 });
  });

  it('does not repeat other refusals', async () => {
    const { url, asked } = await gateway([500]);
    await expect(ensureTerminalSession(options(url, credentialsFile()))).rejects.toMatchObject({ status: 500 });
    expect(asked()).toBe(1);
  });
});
