import { readFileSync } from 'node:fs';
import { CliError } from './cli-error.ts';
import type { ClientConfig } from './config.ts';
import { readCredentials } from './credentials-file.ts';
import { isProcessRunning } from './process-probe.ts';
import type { RelayPaths } from './relay-paths.ts';
import { parseUpLock } from './up-lock.ts';
import { RELAY_UP_FRAGMENT } from './up-lock-file.ts';

/** The gateway to talk to and the user token to talk with: RELAY_URL/RELAY_TOKEN, else the `relay up` running here. */
export function resolveRelayTarget(config: ClientConfig, paths: RelayPaths): { url: string; token: string } {
  const url = config.relayUrl ?? runningGatewayUrl(paths.lockFile);
  if (url === undefined) {
    throw new CliError('no relay to talk to: start one here with "npm run up", or set RELAY_URL and RELAY_TOKEN');
  }
  const token = config.relayToken ?? readCredentials(paths.credentialsFile)?.userToken;
  if (token === undefined) {
    throw new CliError(`no token: set RELAY_TOKEN to your API token (relay up keeps the first user's in ${paths.credentialsFile})`);
  }
  return { url, token };
}

function runningGatewayUrl(lockFile: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(lockFile, 'utf8');
  } catch {
    return undefined;
  }
  const lock = parseUpLock(text);
  return lock !== undefined && isProcessRunning(lock.pid, RELAY_UP_FRAGMENT, true) ? lock.gatewayUrl : undefined;
}
