// A stop proved by its effect, not by the clock: the command a stopped turn runs writes a line into a file every
// 0.2 s for as long as it lives, and once the turn is stopped no process of this machine is left in its session's
// folder (neither the command nor the agent that ran it: the sandbox starts both there).
import { readdirSync, readlinkSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { RelayClient } from './relay.ts';
import { finish, pendingCard } from './script-turns.ts';
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

/** The processes of this machine working in `folder` (or below it): their ids. */
export function processesIn(folder: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const cwd = readlinkSync(`/proc/${pid}/cwd`);
        return cwd === folder || cwd.startsWith(`${folder}/`);
      } catch {
        return false; // Gone meanwhile, or not ours to read.
      }
    })
    .map(Number);
}

/** Once no process works in `folder` any more. */
export async function untilNoProcessIn(folder: string): Promise<void> {
  await until(`no process left in ${folder}`, () => (processesIn(folder).length === 0 ? true : undefined), {
    detail: () => `still there: ${processesIn(folder).join(', ')}`,
  });
}

/**
 * The owner allows the command of a turn that asked to run `tickingCommand('ticks.txt')` in `folder`, and stops the
 * turn once the command runs; the stop is proved by its effect: the turn ends stopped and no process (the command,
 * the agent) is left in the folder. Answers `asked()` as it was at the stop (the model's requests so far), so the
 * test can check what reached the model since.
 */
export async function stopWhileTicking(
  relay: RelayClient,
  turn: { sessionId: string; messageId: string },
  folder: string,
  asked: () => number,
): Promise<number> {
  const card = await pendingCard(relay, turn.sessionId);
  expect((await relay.api('POST', `/api/v1/cards/${card.id}`, { decision: 'allow' })).status).toBe(200);
  await untilTicking(join(folder, 'ticks.txt'));
  expect(processesIn(folder).length).toBeGreaterThan(1);
  const before = asked();
  expect((await relay.api('POST', `/api/v1/sessions/${turn.sessionId}/stop`, {})).status).toBeLessThan(300);
  expect((await finish(relay, turn.sessionId, turn.messageId)).status).toBe('stopped');
  await untilNoProcessIn(folder);
  return before;
}
