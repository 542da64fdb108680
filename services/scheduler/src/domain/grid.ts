/**
 * The schedule grid: `at + k × every_minutes` in absolute UTC minutes. Local clock changes (DST) do not
 * move it: a daily schedule set for 02:00 in winter fires at 03:00 local in summer.
 */

const MINUTE_MS = 60_000;

/** The first grid time strictly after `after`; `at` itself when `at` is later. */
export function nextGridTime(at: Date, everyMinutes: number, after: Date): Date {
  if (at.getTime() > after.getTime()) return at;
  const step = everyMinutes * MINUTE_MS;
  const k = Math.floor((after.getTime() - at.getTime()) / step) + 1;
  return new Date(at.getTime() + k * step);
}
