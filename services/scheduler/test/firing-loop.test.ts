// The firing loop's sleep on a clock the test moves: it looks again exactly when the earliest schedule is due, and
// a second later while a due row stays due (another replica holds it). The store is a fake of the scheduler's own port.
import { ManualClock } from '@relay/clock';
import { createLogger } from '@relay/telemetry';
import { afterEach, expect, it, vi } from 'vitest';
import type { ScheduleStore } from '../src/app/ports.ts';
import { FiringLoop } from '../src/adapters/loops/firing-loop.ts';

const logger = createLogger({ name: 'scheduler-test', level: 'silent' });
let loop: FiringLoop | undefined;
afterEach(() => loop?.stop());

/** A store with nothing to claim whose earliest due time is `earliest()`; records the clock at each firing pass. */
function storeDueAt(clock: ManualClock, earliest: () => Date | undefined) {
  const passes: number[] = [];
  const store = {
    firingTransaction: async (work) => {
      passes.push(clock.now().getTime());
      return work({ claimDue: async () => [], save: async () => undefined, traceFiring: (_scheduleId, _firingId, run) => run() });
    },
    earliestDue: async () => earliest(),
  } as Pick<ScheduleStore, 'firingTransaction' | 'earliestDue'> as ScheduleStore;
  return { store, passes };
}

/** Waits until the loop has gone to sleep on the clock `times` times in all. */
const asleep = (clock: ManualClock, times: number) => vi.waitFor(() => expect(vi.mocked(clock.sleep)).toHaveBeenCalledTimes(times));

it('looks again exactly when the earliest schedule is due, even within a second', async () => {
  const clock = new ManualClock('2026-12-03T10:00:00.000Z');
  vi.spyOn(clock, 'sleep');
  const dueAt = new Date('2026-12-03T10:00:00.300Z');
  const { store, passes } = storeDueAt(clock, () => dueAt);
  loop = new FiringLoop({ store, guard: { countPrompt: async () => true }, clock, logger });
  loop.start();
  await asleep(clock, 1);
  clock.advance(299);
  expect(passes).toHaveLength(1);
  clock.advance(1);
  await vi.waitFor(() => expect(passes).toEqual([Date.parse('2026-12-03T10:00:00.000Z'), dueAt.getTime()]));
});

it('looks again a second later while a due schedule stays due (held by another replica)', async () => {
  const clock = new ManualClock('2026-12-03T10:00:00.000Z');
  vi.spyOn(clock, 'sleep');
  const { store, passes } = storeDueAt(clock, () => new Date('2026-12-03T09:59:59.000Z'));
  loop = new FiringLoop({ store, guard: { countPrompt: async () => true }, clock, logger });
  loop.start();
  await asleep(clock, 1);
  clock.advance(999);
  expect(passes).toHaveLength(1);
  clock.advance(1);
  await vi.waitFor(() => expect(passes).toHaveLength(2));
});
