import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { followClockControl, ManualClock, VirtualClock, createClock, parseClockSpec, SystemClock } from '../src/index.ts';

describe('parseClockSpec', () => {
  it.each([undefined, '', 'system', '  system '])('reads %j as the system clock', (value) => {
    expect(parseClockSpec(value)).toEqual({ kind: 'system' });
  });

  it('reads an instant as a virtual clock at rate 1', () => {
    expect(parseClockSpec('2026-10-24T22:00:00Z')).toEqual({ kind: 'virtual', start: new Date('2026-10-24T22:00:00Z'), rate: 1 });
  });

  it('reads an instant with a rate', () => {
    expect(parseClockSpec('2026-10-24T22:00:00+02:00@60x')).toEqual({
      kind: 'virtual',
      start: new Date('2026-10-24T20:00:00Z'),
      rate: 60,
    });
  });

  it.each(['tomorrow', '2026-13-40T00:00:00Z', '2026-10-24T22:00:00Z@0x', '2026-10-24T22:00:00Z@fastx', '1700000000'])(
    'refuses %j with what is wrong',
    (value) => {
      expect(() => parseClockSpec(value)).toThrow(/ISO-8601|rate/);
    },
  );
});

describe('VirtualClock', () => {
  it('starts at its instant at the shared epoch and runs N times faster', () => {
    let real = 1_000_000;
    const clock = new VirtualClock(new Date('2026-10-24T22:00:00Z'), 60, 1_000_000, () => real);
    expect(clock.now().toISOString()).toBe('2026-10-24T22:00:00.000Z');
    real += 500;
    expect(clock.now().toISOString()).toBe('2026-10-24T22:00:30.000Z');
  });

  it('scales timers: 30 s of clock time at 60x is half a real second', async () => {
    const clock = new VirtualClock(new Date('2026-01-01T00:00:00Z'), 600, Date.now());
    const before = clock.now().getTime();
    await clock.sleep(30_000);
    expect(clock.now().getTime() - before).toBeGreaterThanOrEqual(30_000);
  });

  it('is what createClock builds for a virtual spec, and two services with one epoch agree', () => {
    const spec = parseClockSpec('2026-10-24T22:00:00Z@60x');
    const epoch = Date.now() - 1000;
    const a = createClock(spec, epoch);
    const b = createClock(spec, epoch);
    expect(Math.abs(a.now().getTime() - b.now().getTime())).toBeLessThan(60 * 50);
    expect(createClock({ kind: 'system' })).toBeInstanceOf(SystemClock);
  });
});

describe('VirtualClock skipping ahead', () => {
  it('reads the skipped time on top of its rate, never goes back, and fires the timers it passes at once', async () => {
    let real = 1_000_000;
    const clock = new VirtualClock(new Date('2026-10-24T20:00:00Z'), 1, 1_000_000, () => real);
    const fired: string[] = [];
    clock.setTimer(60 * 60_000, () => fired.push('in an hour'));
    clock.setTimer(5 * 60 * 60_000, () => fired.push('in five hours'));
    clock.skipTo(4 * 60 * 60_000 + 29 * 60_000);
    expect(clock.now().toISOString()).toBe('2026-10-25T00:29:00.000Z');
    clock.skipTo(60_000);
    expect(clock.now().toISOString()).toBe('2026-10-25T00:29:00.000Z');
    real += 1000;
    expect(clock.now().toISOString()).toBe('2026-10-25T00:29:01.000Z');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(fired).toEqual(['in an hour']);
  });

  it('never fires a timer before its clock time, though the real timer under it wakes early', async () => {
    let real = 1_000_000;
    let reads = 0;
    const clock = new VirtualClock(new Date('2026-01-01T00:00:00Z'), 1, 1_000_000, () => {
      reads += 1;
      return real;
    });
    const fired: number[] = [];
    clock.setTimer(5, () => fired.push(real));
    const armed = reads;
    // The real timer wakes (and reads the time) while the time it reads has not moved: not due yet.
    await expect.poll(() => reads).toBeGreaterThan(armed + 1);
    expect(fired).toEqual([]);
    real += 5;
    await expect.poll(() => fired).toEqual([1_000_005]);
  });

  it('keeps a passed-over timer cancellable, and a later one keeps its clock time', async () => {
    const clock = new VirtualClock(new Date('2026-01-01T00:00:00Z'), 1, Date.now());
    const fired: string[] = [];
    const cancelled = clock.setTimer(10_000, () => fired.push('cancelled'));
    const start = clock.now().getTime();
    const later = clock.sleep(60_050).then(() => fired.push(`later at +${clock.now().getTime() - start >= 60_050}`));
    cancelled.cancel();
    clock.skipTo(60_000);
    await later;
    expect(fired).toEqual(['later at +true']);
  });

  it('follows a control file: the skip written there at start and each one written later, acknowledged per service', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'relay-clock-'));
    const file = join(dir, 'skipped');
    try {
      writeFileSync(file, '60000');
      const clock = new VirtualClock(new Date('2026-01-01T00:00:00Z'), 1, Date.now());
      const stop = followClockControl(clock, file, 'session');
      expect(clock.skippedMs).toBe(60_000);
      expect(readFileSync(`${file}.session`, 'utf8')).toBe('60000');
      writeFileSync(`${file}.tmp`, '3600000');
      renameSync(`${file}.tmp`, file);
      await expect.poll(() => readFileSync(`${file}.session`, 'utf8')).toBe('3600000');
      expect(clock.skippedMs).toBe(3_600_000);
      stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('ManualClock', () => {
  it('fires timers in order as time passes them, and not before', () => {
    const clock = new ManualClock('2026-03-29T00:00:00Z');
    const fired: string[] = [];
    clock.setTimer(2000, () => fired.push('b'));
    clock.setTimer(1000, () => fired.push('a'));
    const cancelled = clock.setTimer(1500, () => fired.push('x'));
    cancelled.cancel();
    clock.advance(999);
    expect(fired).toEqual([]);
    clock.advance(1001);
    expect(fired).toEqual(['a', 'b']);
    expect(clock.now().toISOString()).toBe('2026-03-29T00:00:02.000Z');
  });

  it('rejects a sleep when its signal aborts', async () => {
    const clock = new ManualClock('2026-01-01T00:00:00Z');
    const controller = new AbortController();
    const sleeping = clock.sleep(10_000, controller.signal);
    controller.abort(new Error('stopped'));
    await expect(sleeping).rejects.toThrow('stopped');
  });
});
