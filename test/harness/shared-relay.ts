/**
 * One relay shared by the end-to-end files that need nothing special of it: started once, on the first file's
 * request, by the e2e project's global setup (shared-relay.setup.ts), and stopped after the last file. Each file
 * is a user of its own there (an admin, as the first user of a relay of its own would be), so the files stay
 * independent: a user sees only their own sessions, cards, schedules and subscriptions.
 *
 * A file that stops or restarts services, changes relay-wide settings, or needs a clock, provider or limit of its
 * own starts its own relay with startRelay.
 */
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { connectRelay, signIn, type RelayClient, type RelayConnection } from './relay.ts';

declare module 'vitest' {
  interface ProvidedContext {
    /** Where the global setup answers POST with the shared relay's RelayConnection, starting it the first time. */
    sharedRelayUrl: string;
  }
}

/** The shared relay as a new user of it; stop() lets go of this client only. */
export async function sharedRelay(): Promise<RelayClient> {
  const response = await fetch(inject('sharedRelayUrl'), { method: 'POST' });
  if (!response.ok) throw new Error(`the shared relay did not start: ${await response.text()}`);
  const client = connectRelay((await response.json()) as RelayConnection);
  await signIn(client, `e2e user ${randomBytes(4).toString('hex')}`, 'admin');
  return client;
}
