/**
 * The bubblewrap sandbox on this machine (CI installs Debian's bubblewrap): a command reads and writes its folder and
 * nothing else of the relay's — a file next to its folder, a .relay folder inside it, the relay's processes in
 * /proc, the environment it was not given — and a machine without a working bwrap refuses every command.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bubblewrapSandbox, stateFoldersWithin } from '../../src/adapters/tasks/bubblewrap-sandbox.ts';

let root: string;
let folder: string;
let beside: string;

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'relay-sandbox-')));
  folder = join(root, 'session');
  beside = join(root, 'other-user');
  await mkdir(join(folder, '.relay'), { recursive: true });
  await mkdir(join(folder, 'app', '.relay'), { recursive: true });
  await mkdir(beside);
  await writeFile(join(folder, 'notes.txt'), 'the session’s own file');
  await writeFile(join(folder, '.relay', 'credentials.json'), '{"token":"admin-secret-in-folder"}');
  await writeFile(join(folder, 'app', '.relay', 'credentials.json'), '{"token":"nested-admin-secret"}');
  await writeFile(join(beside, 'secret.txt'), 'another user’s secret');
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Runs `script` in the sandbox of `folder` with the environment `env`; its output and exit code. */
function run(script: string, env: Record<string, string> = { PATH: '/usr/bin:/bin' }): { out: string; code: number | null } {
  const sandbox = bubblewrapSandbox({ path: process.env.PATH });
  const confined = sandbox.wrap({ folder, argv: ['sh', '-c', script] });
  const result = spawnSync(confined.file, confined.args, { cwd: folder, env, encoding: 'utf8' });
  return { out: `${result.stdout}${result.stderr}`, code: result.status };
}

describe('a command in the bubblewrap sandbox', () => {
  it('is available on this machine, and its card line names the sandbox and the folder', () => {
    const sandbox = bubblewrapSandbox({ path: process.env.PATH });
    expect(sandbox.unavailable).toBeUndefined();
    expect(sandbox.where(folder)).toBe(`bubblewrap sandbox — reads and writes only ${folder}; no relay file, process or secret`);
  });

  it('reads and writes its folder, starting in it', async () => {
    const { out, code } = run('pwd; cat notes.txt; echo made > made.txt');
    expect(code).toBe(0);
    expect(out).toBe(`${folder}\nthe session’s own file`);
    expect(await readFile(join(folder, 'made.txt'), 'utf8')).toBe('made\n');
  });

  it('sees no folder beside its own, and every .relay folder inside its own is empty and read-only', () => {
    const { out } = run(
      `cat ${beside}/secret.txt; ls ${root}; cat .relay/credentials.json app/.relay/credentials.json; ls -A .relay; touch .relay/x; echo end`,
    );
    expect(out).not.toMatch(/another user’s secret|admin-secret-in-folder|nested-admin-secret/);
    // Of the folder above, only the session's own is there.
    expect(out.split('\n')[0]).toBe('session');
    expect(out).toContain(`cat: ${beside}/secret.txt: No such file or directory`);
    expect(out).toMatch(/Read-only file system/);
    expect(stateFoldersWithin(folder, [])).toEqual([join(folder, '.relay'), join(folder, 'app', '.relay')]);
  });

  it('sees only its own processes, and no relay process’s environment or command line', () => {
    const { out } = run('for p in /proc/[0-9]*; do echo "$p $(tr "\\0" " " < $p/cmdline)"; cat $p/environ >/dev/null 2>&1; done');
    const pids = out
      .trim()
      .split('\n')
      .map((line) => Number(line.split(' ')[0]!.slice('/proc/'.length)));
    // The sandbox's init (1), the shell, and what the shell forked: nothing of the host's.
    expect(Math.max(...pids)).toBeLessThan(10);
    expect(out).not.toContain(String(process.pid));
    expect(out).not.toMatch(/node|vitest|postgres|nats-server/);
  });

  it('starts with the environment it is given and a private home, no credential of the relay’s', () => {
    const { out } = run('env | sort; ls -A $HOME | wc -l', { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' });
    expect(
      out
        .split('\n')
        .filter((line) => line.includes('='))
        .map((line) => line.split('=')[0]),
    ).toEqual(['HOME', 'LANG', 'OLDPWD', 'PATH', 'PWD', 'TMPDIR'].filter((name) => out.includes(`${name}=`)));
    expect(out).toContain('HOME=/tmp/home');
    expect(out).not.toMatch(/DATABASE_URL|NATS_|RELAY_SERVICE|TOKEN|PASSWORD/);
  });

  it('cannot reach the machine’s files outside the system’s programs: no /root, /home, /var, /work, nor /etc/shadow', () => {
    const { out } = run('ls / ; cat /etc/shadow; ls /root /var /work /home 2>&1 | head -5');
    const top = out.split('\n').filter((line) => /^[a-z0-9]+$/.test(line));
    expect(top).not.toEqual(expect.arrayContaining(['root']));
    expect(top).not.toContain('var');
    expect(top).not.toContain('work');
    expect(out).toMatch(/shadow: No such file/);
  });
});

describe("an agent's CLI with home files", () => {
  it("finds them read-only in its home, cannot change them, and the relay's copy is gone once it ended", async () => {
    const sandbox = bubblewrapSandbox({ path: process.env.PATH });
    // One stream (2>&1), so the shell's refusal comes before "refused" whatever order two pipes are read in.
    const script =
      'exec 2>&1; cat "$HOME/.agent/settings.json"; echo changed > "$HOME/.agent/settings.json" || echo refused; touch "$HOME/.agent/own" && echo writable';
    // The relay writes its copy in its temporary folder: here one of this test's own.
    const relayTmp = join(root, 'relay-tmp');
    await mkdir(relayTmp);
    const before = process.env.TMPDIR;
    process.env.TMPDIR = relayTmp;
    let child;
    try {
      child = sandbox.spawn({ folder, argv: ['sh', '-c', script], env: { PATH: '/usr/bin:/bin' }, homeFiles: { '.agent/settings.json': '{"redact":true}' } });
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
    }
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    expect(readdirSync(relayTmp)).toHaveLength(1);
    await new Promise((resolve) => child.once('close', resolve));
    // Read as given; written over: refused; its home's folder stays its own to write in.
    expect(out).toMatch(/^\{"redact":true\}.*Read-only file system\nrefused\nwritable\n$/s);
    expect(readdirSync(relayTmp)).toEqual([]);
  });
});

describe("the agents' CLIs, looked for on this machine", () => {
  it("finds a package's CLI from the session service's code, a configured path and a program on a PATH; says which are not there", async () => {
    const sandbox = bubblewrapSandbox({ path: process.env.PATH });
    await writeFile(join(root, 'not-executable'), '#!/bin/sh\n', { mode: 0o644 });
    const platform = `${process.platform}-${process.arch}`;
    const found = await sandbox.locate([
      { package: `@github/copilot-sdk-${platform}`, file: `prebuilds/${platform}/copilot-runtime`, folder: '.' },
      { path: '/bin/sh' },
      { command: 'sh', search: `/nonexistent:${root}:/bin` },
      { command: 'no-such-agent', search: '/bin:/usr/bin' },
      { path: join(root, 'not-executable') },
      { path: root },
      { package: '@relay/no-such-package', file: 'cli' },
    ]);
    expect(found[0]!.path).toBe(join(found[0]!.folder, 'prebuilds', platform, 'copilot-runtime'));
    expect(found[0]!.folder).toMatch(new RegExp(`/node_modules/@github/copilot-sdk-${platform}$`));
    expect(found.slice(1)).toEqual([{ path: '/bin/sh', folder: '/bin' }, { path: '/bin/sh', folder: '/bin' }, undefined, undefined, undefined, undefined]);
    expect(sandbox.machine).toBe('on this machine');
  });
});

describe('where no sandbox can be had', () => {
  it('bwrap missing or unable to make its namespaces: unavailable, with why, and nothing is wrapped', () => {
    const missing = bubblewrapSandbox({ path: '/nonexistent', executable: join(root, 'no-bwrap') });
    expect(missing.unavailable).toMatch(/^commands do not run on this relay: no sandbox can be had here \(bubblewrap cannot make its namespaces here/);
    expect(() => missing.wrap({ folder, argv: ['true'] })).toThrow(/no sandbox can be had/);
    const broken = bubblewrapSandbox({ path: '/nonexistent', executable: '/bin/false' });
    expect(broken.unavailable).toMatch(/a command never runs unconfined$/);
  });
});
