/**
 * Folder paths as this machine resolves them (node:fs realpath): where a session's commands would really run.
 */
import { realpath } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { RealFolders } from '../../app/ports.ts';

/** realpath of the deepest part of `folder` that exists, with the rest (not there yet) appended as written. */
async function realPath(folder: string): Promise<string> {
  try {
    return await realpath(folder);
  } catch (error) {
    const parent = dirname(folder);
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || parent === folder) return folder;
    return join(await realPath(parent), basename(folder));
  }
}

export const nodeRealFolders: RealFolders = { realPath };
