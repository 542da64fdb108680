// The real `relay` CLI, run as a child process against a test relay with a user's token.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { RelayClient } from './relay.ts';

const relayCli = fileURLToPath(new URL('../../cli/bin/relay.mjs', import.meta.url));

/** Runs `relay ...args` against `relay` as the user of `token`; answers its exit code and output, never throws. */
export async function runRelayCli(relay: RelayClient, token: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', RELAY_URL: relay.gatewayUrl, RELAY_TOKEN: token };
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [relayCli, ...args], { env, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}
