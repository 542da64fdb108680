// `relay <command>` runs the CLI's build, cli/dist/main.js, in the launcher's own process, and makes the build
// again first when it is older than a source (ADR 0027).
import { execFile } from 'node:child_process';
import { statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { RELAY_UP_FRAGMENT } from '../src/up-lock-file.ts';

/** scripts/build.mjs (no type declarations). */
const { CLI_DIR, isStale } = (await import(new URL('../../scripts/build.mjs', import.meta.url).href)) as { CLI_DIR: string; isStale(dir: string): boolean };
/** cli/bin/launch-cli.mjs (no type declarations): the bundle it starts `relay up` from. */
const { MAIN } = (await import(new URL('../bin/launch-cli.mjs', import.meta.url).href)) as { MAIN: string };
const relayCli = fileURLToPath(new URL('../bin/relay.mjs', import.meta.url));
const metaFile = join(CLI_DIR, 'dist', 'meta.json');

/** Runs `relay ...args`; answers its exit code and output, never throws. */
async function relay(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [relayCli, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe('the relay command', () => {
  it('makes the build again before it runs a command when the build is older than a source', async () => {
    const past = new Date('2000-01-01T00:00:00Z');
    utimesSync(metaFile, past, past);
    expect(isStale(CLI_DIR)).toBe(true);

    const help = await relay('help');

    expect(help.code).toBe(0);
    expect(help.stdout).toContain('relay up');
    expect(statSync(metaFile).mtimeMs).toBeGreaterThan(past.getTime());
    expect(isStale(CLI_DIR)).toBe(false);
  });

  it('exits with the command’s own code and reason, run in its process', async () => {
    const wrong = await relay('no-such-command');

    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toBe('relay: unknown command "no-such-command"; run "relay help"\n');
  });

  // The other commands find a running `relay up` by its lock file and a command line naming RELAY_UP_FRAGMENT.
  it('starts relay up from the file whose name the other commands look for in its command line', () => {
    expect(MAIN).toContain(RELAY_UP_FRAGMENT);
  });
});
