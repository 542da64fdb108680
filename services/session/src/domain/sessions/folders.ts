import { invalidInput } from '../errors.ts';

/** The name of the folder `relay up` keeps its state in (credentials among it): never a session's folder. */
export const RELAY_STATE_FOLDER = '.relay';

/**
 * An absolute POSIX path with '.', '..', repeated and trailing slashes resolved; undefined when the path is
 * not absolute. Pure string work: whether the folder exists is for the worker that starts in it.
 */
export function normaliseFolder(path: string): string | undefined {
  if (!path.startsWith('/')) return undefined;
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `/${parts.join('/')}`;
}

/**
 * The folder a session may use, normalised, or a refusal saying what is wrong: not absolute, inside the relay's
 * own state folder (.relay, which holds its credentials), or outside every folder the relay allows
 * (RELAY_ALLOWED_ROOTS). Give it the real path (realFolder): a symbolic link must not lead out of the roots.
 */
export function checkFolder(cwd: string, allowedRoots: readonly string[]): string {
  const folder = cwd.includes('\0') ? undefined : normaliseFolder(cwd.trim());
  if (folder === undefined) {
    throw invalidInput(`cwd '${cwd}' is not an absolute path; give a folder such as ${allowedRoots[0] ?? '/home/dev/project'}.`, {
      field: 'cwd',
    });
  }
  const refusal = folderRefusal(folder, allowedRoots);
  if (refusal !== undefined) throw invalidInput(refusal, { field: 'cwd', allowedRoots: [...allowedRoots] });
  return folder;
}

/** Why commands may not run in a normalised real folder, or undefined when they may. */
export function folderRefusal(folder: string, allowedRoots: readonly string[]): string | undefined {
  if (inStateFolder(folder)) {
    return `cwd '${folder}' is inside the relay's own state folder (${RELAY_STATE_FOLDER}), which holds its credentials; sessions never work there.`;
  }
  if (!isInsideAny(folder, allowedRoots)) return `cwd '${folder}' is outside the folders sessions on this relay may use (${allowedRoots.join(', ')}).`;
  return undefined;
}

/** Whether a normalised folder is, or lies below, a folder named .relay. */
export function inStateFolder(folder: string): boolean {
  return folder.split('/').includes(RELAY_STATE_FOLDER);
}

/** Whether a normalised folder is one of the roots or lies below one. */
export function isInsideAny(folder: string, roots: readonly string[]): boolean {
  return roots.some((root) => {
    const base = normaliseFolder(root);
    if (base === undefined) return false;
    return base === '/' || folder === base || folder.startsWith(`${base}/`);
  });
}
