// The e2e project's global setup: starts the shared relay (shared-relay.ts) when a file first asks for it, so a run
// of files that all have relays of their own starts none, and stops it after the last file. A start that failed is
// tried again at the next file's request.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestProject } from 'vitest/node';
import { startRelay, type Relay } from './relay.ts';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let relay: Promise<Relay> | undefined;
  const server = createServer((_request, response) => {
    const starting = (relay ??= startRelay({ name: 'desk' }).catch((error: unknown) => {
      relay = undefined;
      throw error;
    }));
    starting.then(
      (started) => response.end(JSON.stringify(started.connection)),
      (error: Error) => response.writeHead(500).end(error.message),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  project.provide('sharedRelayUrl', `http://127.0.0.1:${(server.address() as AddressInfo).port}/relay`);
  return async () => {
    server.close();
    await (await relay?.catch(() => undefined))?.stop();
  };
}
