import { invalidInput } from './errors.ts';

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
 * The folder a session may use, normalised, or a refusal saying what is wrong: not absolute, or outside
 * every folder the relay allows (RELAY_ALLOWED_ROOTS).
 */
export function checkFolder(cwd: string, allowedRoots: readonly string[]): string {
  const folder = cwd.includes('\0') ? undefined : normaliseFolder(cwd.trim());
  if (folder === undefined) {
    throw invalidInput(`cwd '${cwd}' is not an absolute path; give a folder such as ${allowedRoots[0] ?? '/home/dev/project'}.`, {
      field: 'cwd',
    });
  }
  if (!isInsideAny(folder, allowedRoots)) {
    throw invalidInput(
      `cwd '${folder}' is outside the folders sessions on this relay may use (${allowedRoots.join(', ')}).`,
      { field: 'cwd', allowedRoots: [...allowedRoots] },
    );
  }
  return folder;
}

/** Whether a normalised folder is one of the roots or lies below one. */
export function isInsideAny(folder: string, roots: readonly string[]): boolean {
  return roots.some((root) => {
    const base = normaliseFolder(root);
    if (base === undefined) return false;
    return base === '/' || folder === base || folder.startsWith(`${base}/`);
  });
}
