import { readFileSync, renameSync, watch, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { VirtualClock } from './index.ts';

/**
 * Lets whoever started a relay's services (the end-to-end harness) move their virtual clocks forward together.
 * `file` holds the clock time skipped in all, in ms; the writer replaces it whole (a rename). Each service applies
 * it at start (a restarted service keeps the time line) and whenever it changes, then writes `<file>.<name>` with the
 * figure it applied, so the writer can wait until every service has moved.
 */
export function followClockControl(clock: VirtualClock, file: string, name: string): () => void {
  let acknowledged: number | undefined;
  const apply = () => {
    let skipped: number;
    try {
      skipped = Number(readFileSync(file, 'utf8').trim());
    } catch {
      return; // nothing skipped yet
    }
    if (!Number.isFinite(skipped)) return;
    clock.skipTo(skipped);
    if (acknowledged === clock.skippedMs) return;
    acknowledged = clock.skippedMs;
    const ack = `${file}.${name}`;
    writeFileSync(`${ack}.tmp`, String(acknowledged));
    renameSync(`${ack}.tmp`, ack);
  };
  // The directory, not the file: the writer renames a new file over it.
  const watcher = watch(dirname(file), (_event, changed) => {
    if (changed === basename(file)) apply();
  });
  watcher.unref();
  apply();
  return () => watcher.close();
}
