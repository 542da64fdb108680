import { describe, expect, it } from 'vitest';
import { formatLogLine } from '../src/format-log-line.ts';

const options = { color: false, formatTime: () => '12:03:04' };

describe('formatLogLine', () => {
  it('shows a pino line as time, name, level, message and the extra fields', () => {
    const line = JSON.stringify({
      level: 30,
      time: 1,
      pid: 9,
      hostname: 'h',
      name: 'relay-session',
      msg: 'gRPC server listening',
      port: 50051,
      trace_id: 'abc',
      note: 'two words',
    });
    expect(formatLogLine('session', line, options)).toBe('12:03:04 session      INFO  gRPC server listening port=50051 note="two words"');
  });

  it('reads level labels as well as numbers, and hides the service field the name already shows', () => {
    const line = JSON.stringify({ level: 'error', time: 1, service: 'scheduler', msg: 'claim failed' });
    expect(formatLogLine('scheduler', line, options)).toBe('12:03:04 scheduler    ERROR claim failed');
  });

  it('reads an ISO time as well as epoch milliseconds', () => {
    const seen: number[] = [];
    formatLogLine('session', JSON.stringify({ level: 30, time: '2026-11-30T05:11:55.978Z', msg: 'x' }), {
      color: false,
      formatTime: (ms) => String(seen.push(ms)),
    });
    expect(seen).toEqual([Date.parse('2026-11-30T05:11:55.978Z')]);
  });

  it('puts an error’s stack under the line', () => {
    const line = JSON.stringify({
      level: 50,
      time: 1,
      msg: 'handler failed',
      err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at x (y.ts:1:1)' },
    });
    expect(formatLogLine('gateway', line, options)).toBe('12:03:04 gateway      ERROR handler failed\n    Error: boom\n        at x (y.ts:1:1)');
  });

  it('passes a line that is not JSON through after the name', () => {
    expect(formatLogLine('nats', '[123] [INF] Server is ready', options)).toBe('         nats         [123] [INF] Server is ready');
  });

  it('colours the name and warning levels only when asked', () => {
    const line = JSON.stringify({ level: 40, time: 1, msg: 'slow' });
    expect(formatLogLine('session', line, { ...options, color: true, colorIndex: 0 })).toContain('\u001b[33mWARN ');
  });
});
