/**
 * The one-machine sandbox of allowed commands and agents' CLIs: bubblewrap (Debian's `bubblewrap`, the sandbox
 * Flatpak uses). Each command gets new user, PID, IPC, UTS and mount namespaces in which only the system's programs
 * (/usr and the few /etc files programs need) are there, read-only; its session's folder read-write; a private /tmp
 * and home; a /proc of its own PID namespace (no relay process in it); a /dev of the harmless devices. Every folder
 * named .relay within the session's folder (the relay's state: credentials, passwords) is masked by an empty one.
 * It runs as an unprivileged user of its own user namespace with no capabilities and may not make a namespace
 * of its own. The network is the machine's: what it holds no credential for (NATS, PostgreSQL, the relay's gRPC)
 * lets it in for nothing.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readdirSync, readlinkSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { locateCli, type CliLocation, type CliProgram } from '@relay/service/cli-programs';
import { RELAY_STATE_FOLDER } from '../../domain/sessions/folders.ts';
import { noSandboxRefusal, type SandboxedProcess } from '../../app/tasks/command-sandbox.ts';
import type { CliSandbox, SandboxedCli } from '../../app/tasks/cli-sandbox.ts';
import type { SandboxedCommand, TaskSandbox } from '../../app/tasks/task-sandbox.ts';

/** The system's top folders that merged-/usr systems keep as links into /usr (bound read-only where they are folders). */
const SYSTEM_TOPS = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
/**
 * The files of /etc programs need (names, the dynamic linker, TLS roots, Debian's alternatives, name resolution),
 * read-only. Never the rest of /etc: it holds the machine's configuration, some of it secret (npmrc, pip.conf, …).
 */
const ETC_FILES = [
  'alternatives',
  'ca-certificates',
  'ssl',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'localtime',
  'nsswitch.conf',
  'host.conf',
  'hosts',
  'resolv.conf',
  'gai.conf',
  'services',
  'protocols',
  'passwd',
  'group',
  'mime.types',
  'os-release',
  'debian_version',
  'inputrc',
].map((name) => `/etc/${name}`);
/** The user a command runs as inside its user namespace (it maps to the relay's own account outside, without its capabilities). */
const SANDBOX_ID = '1000';
/** The private home and temporary folder every command starts with (on the sandbox's own /tmp, gone when it ends). */
const SANDBOX_HOME = '/tmp/home';
/** How deep below a session's folder a .relay folder is looked for (and masked). */
const STATE_FOLDER_DEPTH = 3;

export interface BubblewrapOptions {
  /** PATH to look for bwrap on. */
  path: string | undefined;
  /** bwrap itself, when not looked for on PATH. */
  executable?: string;
  /** The relay's state folders (absolute): masked wherever they lie inside a session's folder. */
  stateFolders?: readonly string[];
}

/** Finds bwrap and checks that it can make its namespaces here; unavailable (with why) when it cannot. */
export function bubblewrapSandbox(options: BubblewrapOptions): BubblewrapSandbox {
  const bwrap = options.executable ?? findOnPath('bwrap', options.path);
  if (bwrap === undefined) return new BubblewrapSandbox(undefined, 'bubblewrap (bwrap) is not installed; on Debian/Ubuntu: apt-get install bubblewrap', []);
  const sandbox = new BubblewrapSandbox(bwrap, undefined, options.stateFolders ?? []);
  const probe = spawnSync(bwrap, sandbox.wrap({ folder: '/tmp', argv: ['true'] }).args, { env: {}, encoding: 'utf8', timeout: 10_000 });
  if (probe.status !== 0) {
    const why = (probe.stderr || probe.error?.message || `exit code ${probe.status ?? probe.signal}`).trim();
    return new BubblewrapSandbox(
      undefined,
      `bubblewrap cannot make its namespaces here (${why}); user namespaces may be off (sysctl kernel.unprivileged_userns_clone) or the container may forbid them`,
      [],
    );
  }
  return sandbox;
}

export class BubblewrapSandbox implements TaskSandbox, CliSandbox {
  readonly #bwrap: string | undefined;
  readonly #stateFolders: readonly string[];
  readonly unavailable: string | undefined;

  constructor(bwrap: string | undefined, unavailable: string | undefined, stateFolders: readonly string[]) {
    this.#bwrap = bwrap;
    this.unavailable = unavailable === undefined ? undefined : noSandboxRefusal(unavailable);
    this.#stateFolders = stateFolders;
  }

  readonly machine = 'on this machine';

  /** Looked for on this machine's filesystem, packages from the session service's own code (bwrap shows them read-only). */
  async locate(programs: readonly CliProgram[]): Promise<(CliLocation | undefined)[]> {
    const from = dirname(fileURLToPath(import.meta.url));
    return programs.map((program) => locateCli(program, from));
  }

  where(folder: string): string {
    return `bubblewrap sandbox — reads and writes only ${folder}; no relay file, process or secret`;
  }

  /**
   * How to start `argv` confined to `folder` (read and written) and, read-only, `readOnly` (a program that lies
   * outside the system's folders, such as an agent's CLI) and `homeFiles` (files of this machine shown in its home:
   * their path there → the file here). Throws when the sandbox is unavailable.
   */
  wrap(input: { folder: string; argv: readonly string[]; readOnly?: readonly string[]; homeFiles?: Readonly<Record<string, string>> }): SandboxedProcess {
    if (this.#bwrap === undefined) throw new Error(this.unavailable);
    const { folder } = input;
    const args = [
      '--unshare-user',
      '--uid',
      SANDBOX_ID,
      '--gid',
      SANDBOX_ID,
      '--disable-userns',
      '--unshare-pid',
      '--unshare-ipc',
      '--unshare-uts',
      '--unshare-cgroup-try',
      '--die-with-parent',
      '--new-session',
      '--hostname',
      'sandbox',
      '--ro-bind',
      '/usr',
      '/usr',
      ...SYSTEM_TOPS.flatMap(systemTop),
      ...ETC_FILES.flatMap((path) => ['--ro-bind-try', path, path]),
      '--proc',
      '/proc',
      '--dev',
      '/dev',
      '--tmpfs',
      '/tmp',
      '--dir',
      SANDBOX_HOME,
      ...(input.readOnly ?? []).flatMap((path) => ['--ro-bind', path, path]),
      ...Object.entries(input.homeFiles ?? {}).flatMap(([path, file]) => ['--ro-bind', file, join(SANDBOX_HOME, path)]),
      '--bind',
      folder,
      folder,
      ...stateFoldersWithin(folder, this.#stateFolders).flatMap((path) => ['--tmpfs', path, '--remount-ro', path]),
      '--setenv',
      'HOME',
      SANDBOX_HOME,
      '--setenv',
      'TMPDIR',
      '/tmp',
      '--chdir',
      folder,
      '--',
      ...input.argv,
    ];
    return { file: this.#bwrap, args };
  }

  /**
   * Starts a CLI wrapped in bubblewrap as a child of this process, its stdio the caller's (each process its own
   * namespaces: no session is needed to tell users apart). Its home files are written, for it alone, in a folder of
   * the relay's (never the session's), removed once it ended.
   */
  spawn(input: {
    folder: string;
    argv: readonly string[];
    env: Readonly<Record<string, string | undefined>>;
    readOnly?: readonly string[];
    homeFiles?: Readonly<Record<string, string>>;
  }): SandboxedCli {
    const written = input.homeFiles === undefined ? undefined : writeHomeFiles(input.homeFiles);
    try {
      const confined = this.wrap({ ...input, homeFiles: written?.files });
      const child = spawn(confined.file, confined.args, { cwd: input.folder, env: { ...input.env }, stdio: ['pipe', 'pipe', 'pipe'] });
      if (written !== undefined) child.once('close', written.remove).once('error', written.remove);
      return child;
    } catch (error) {
      written?.remove();
      throw error;
    }
  }

  /**
   * Starts `argv` wrapped in bubblewrap as a process of this machine, in a process group of its own: stopping it ends
   * the group, and with it the sandbox's PID namespace (the command's children).
   */
  start(input: { folder: string; argv: readonly string[]; env: Readonly<Record<string, string>>; onOutput: (chunk: Uint8Array) => void }): SandboxedCommand {
    const confined = this.wrap({ folder: input.folder, argv: input.argv });
    const child = spawn(confined.file, confined.args, { cwd: input.folder, env: { ...input.env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    // Listened to at once: a quick command ends before its caller looks.
    const ended = new Promise<{ exitCode: number | null; signal: string | null }>((resolve) =>
      child.once('close', (exitCode, signal) => resolve({ exitCode, signal })),
    );
    child.stdout?.on('data', input.onOutput);
    child.stderr?.on('data', input.onOutput);
    const started = new Promise<{ localPid: number | null }>((resolve, reject) => {
      child.once('spawn', () => resolve({ localPid: child.pid ?? null })).once('error', reject);
    });
    const stop = (): void => {
      // Not once it exited: its process group id may belong to another process by now.
      if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // Already gone.
      }
    };
    return { started, ended, stop };
  }
}

/** Writes a process's home files, read-only, in a new folder only the relay's account reads (mkdtemp's): their path there → the file. */
function writeHomeFiles(texts: Readonly<Record<string, string>>): { files: Record<string, string>; remove: () => void } {
  const root = mkdtempSync(join(tmpdir(), 'relay-home-files-'));
  const files: Record<string, string> = {};
  for (const [index, [path, text]] of Object.entries(texts).entries()) {
    const file = join(root, String(index));
    writeFileSync(file, text, { mode: 0o444 });
    files[path] = file;
  }
  return { files, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** A system top folder as the sandbox shows it: the same link into /usr, the folder read-only, or nothing. */
function systemTop(path: string): string[] {
  try {
    return lstatSync(path).isSymbolicLink() ? ['--symlink', readlinkSync(path), path] : ['--ro-bind', path, path];
  } catch {
    return [];
  }
}

/** The .relay folders within `folder` (its known state folders, and any down to STATE_FOLDER_DEPTH levels). */
export function stateFoldersWithin(folder: string, known: readonly string[]): string[] {
  const found = new Set(known.filter((path) => path.startsWith(`${folder}/`) && existsSync(path)));
  const walk = (dir: string, depth: number): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (!entry.isDirectory() || entry.name === 'node_modules' || entry.name === '.git') continue;
      const path = join(dir, entry.name);
      if (entry.name === RELAY_STATE_FOLDER) found.add(path);
      else if (depth > 1) walk(path, depth - 1);
    }
  };
  walk(folder, STATE_FOLDER_DEPTH);
  return [...found].sort();
}

/** The relay's state folders near `from` (the service's own folder): a .relay folder in it or any folder above it. */
export function stateFoldersAbove(from: string): string[] {
  const found: string[] = [];
  for (let dir = realpathSync(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, RELAY_STATE_FOLDER))) found.push(join(dir, RELAY_STATE_FOLDER));
    if (dirname(dir) === dir) return found;
  }
}

function findOnPath(name: string, path: string | undefined): string | undefined {
  for (const dir of [...(path ?? '').split(delimiter).filter((entry) => entry !== ''), '/usr/bin', '/bin']) {
    const candidate = join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}
