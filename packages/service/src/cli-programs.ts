/**
 * Where an agent's CLI lies on a machine: the one lookup the session service runs for its own sandbox (bubblewrap)
 * and the command runner runs for the session service on Kubernetes (RunnerService/LocateClis), so the session
 * service's image need not carry a CLI that only the runner starts. A provider names its CLI (a configured path, a
 * program on a PATH, a file in a package); the machine that starts it says whether, and where, it is executable there.
 */
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join } from 'node:path';

/** An agent's CLI, as the provider that runs it names it. */
export type CliProgram =
  /** An absolute path (a configured one). */
  | { path: string }
  /** A program name, looked for in each folder of `search` (a PATH). */
  | { command: string; search: string }
  /**
   * `file` in the package `package`, found as Node finds a package: from the last of `via` (each found from the one
   * before, the first from `from`); `folder` (in the package) is what it runs beside, else the file's folder.
   */
  | { package: string; file: string; folder?: string; via?: readonly string[] };

/** Where a CLI lies (absolute) and the folder it runs beside (its sandbox shows that folder read-only). */
export interface CliLocation {
  path: string;
  folder: string;
}

/** Where `program` is, executable, on this machine; packages are found from the folder `from`; undefined: it is not. */
export function locateCli(program: CliProgram, from: string): CliLocation | undefined {
  if ('path' in program) return isAbsolute(program.path) && isExecutable(program.path) ? { path: program.path, folder: dirname(program.path) } : undefined;
  if ('command' in program) {
    if (isAbsolute(program.command)) return locateCli({ path: program.command }, from);
    const found = program.search
      .split(delimiter)
      .filter((folder) => isAbsolute(folder))
      .map((folder) => join(folder, program.command))
      .find(isExecutable);
    return found === undefined ? undefined : { path: found, folder: dirname(found) };
  }
  let base: string | undefined = from;
  for (const name of [...(program.via ?? []), program.package]) base = base === undefined ? undefined : packageFolder(name, base);
  if (base === undefined) return undefined;
  const path = join(base, program.file);
  return isExecutable(path) ? { path, folder: program.folder === undefined ? dirname(path) : join(base, program.folder) } : undefined;
}

/** The folder of the package `name` as Node finds it from `from`: in node_modules of `from` or of a folder above it. */
function packageFolder(name: string, from: string): string | undefined {
  for (let folder = from; ; folder = dirname(folder)) {
    const candidate = join(folder, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(folder) === folder) return undefined;
  }
}

/** Whether `path` is a file this process may execute. */
function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
