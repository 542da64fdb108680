/**
 * What the runner checks before it starts a command (pure: the real paths come in resolved): a program to run, and
 * a folder that really lies under the workspace, the sessions' volume. A symbolic link in the workspace that leads
 * out of it is judged by where it leads.
 */

/** Why the command may not start, or undefined when it may. */
export function commandRefusal(input: { argv: readonly string[]; folder: string; realFolder: string | undefined; realWorkspace: string }): string | undefined {
  if (input.argv.length === 0 || input.argv[0] === '') return 'no command: argv is empty';
  if (!input.folder.startsWith('/')) return `folder '${input.folder}' is not an absolute path`;
  if (input.realFolder === undefined) return `folder '${input.folder}' is not a folder on the runner`;
  if (!isUnder(input.realFolder, input.realWorkspace)) return `folder '${input.folder}' is not under the runner's workspace (${input.realWorkspace})`;
  return undefined;
}

/** Whether `path` is `root` or lies below it (both real, normalised paths). */
export function isUnder(path: string, root: string): boolean {
  return root === '/' || path === root || path.startsWith(`${root}/`);
}
