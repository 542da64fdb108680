import { normaliseFolder } from '../../domain/sessions/folders.ts';
import type { RealFolders } from '../ports.ts';

/**
 * The folder as the machine resolves it (symbolic links followed), so that the allowed-roots check sees where
 * a command would really run. `cwd` as given when it is not an absolute path (checkFolder refuses it).
 */
export async function realFolder(folders: RealFolders, cwd: string): Promise<string> {
  const folder = cwd.includes('\0') ? undefined : normaliseFolder(cwd.trim());
  return folder === undefined ? cwd : folders.realPath(folder);
}
