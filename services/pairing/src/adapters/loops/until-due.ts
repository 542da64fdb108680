/**
 * How long a loop sleeps before its next look: until `nextDueAt`, but at least `minMs` (so a backlog does not
 * spin) and at most `maxMs` (rows added by another replica, which nudges only its own loop, are seen within it).
 */
export function untilDue(nextDueAt: Date | undefined, now: Date, minMs: number, maxMs: number): number {
  if (nextDueAt === undefined) return maxMs;
  return Math.min(maxMs, Math.max(minMs, nextDueAt.getTime() - now.getTime()));
}
