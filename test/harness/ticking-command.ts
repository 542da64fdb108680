// A stop proved by its effect, not by the clock: the command a stopped turn runs writes a line into a file every
// 0.2 s for as long as it lives, so once the turn is stopped and a whole other turn has run since, the file must not
// have grown (the command, and the agent that ran it, are gone).
import { readFile } from 'node:fs/promises';
import { until } from './until.ts';

/** A shell command that appends a line to `file` (in its folder) every 0.2 s, forever. */
export const tickingCommand = (file: string): string => `while true; do echo tick >> ${file}; sleep 0.2; done`;

/** How many lines the command wrote into `path` (0 before it ran). */
export async function ticks(path: string): Promise<number> {
  const text = await readFile(path, 'utf8').catch(() => '');
  return text.split('\n').filter((line) => line !== '').length;
}

/** Once the command runs (it wrote its first lines). */
export async function untilTicking(path: string): Promise<void> {
  await until(`the command ticking into ${path}`, async () => ((await ticks(path)) >= 2 ? true : undefined));
}
