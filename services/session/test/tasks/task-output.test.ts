import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { collapseRepeats, consoleLines, stripAnsi, tailOf } from '../../src/domain/tasks/console-text.ts';
import { readConsole } from '../../src/domain/tasks/console-text.ts';
import { redactCredentials } from '../../src/domain/tasks/redact-credentials.ts';
import { isBackgroundOnly, isOutputKept, stallOf, TASK_OUTPUT_KEPT_MS } from '../../src/domain/tasks/task.ts';
import { parseTestCounts } from '../../src/domain/tasks/test-counts.ts';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/task-output/${name}`, import.meta.url), 'utf8');
const counts = (name: string) => parseTestCounts(stripAnsi(fixture(name)));

describe('test-run counts from recorded runner output', () => {
  it.each([
    ['vitest.txt', 'vitest', 2, 1, 1],
    ['jest.txt', 'jest', 2, 1, 1],
    ['node-test-tap.txt', 'node:test', 1, 1, 2],
    ['node-test-spec.txt', 'node:test', 1, 1, 2],
    ['pytest.txt', 'pytest', 2, 1, 1],
    ['go-test.txt', 'go test', 2, 1, 1],
    ['go-test-subtests.txt', 'go test', 3, 1, 1],
    ['cargo-test.txt', 'cargo test', 2, 1, 1],
  ] as const)('%s → %s final counts', (name, runner, passed, failed, skipped) => {
    expect(counts(name)).toEqual({ runner, passed, failed, skipped, final: true });
  });

  it('counts so far while a run has not printed its summary', () => {
    const tap = stripAnsi(fixture('node-test-tap.txt'));
    const running = tap.slice(0, tap.indexOf('1..4'));
    expect(parseTestCounts(running)).toEqual({ runner: 'node:test', passed: 1, failed: 1, skipped: 2, final: false });
    const cargo = fixture('cargo-test.txt');
    expect(parseTestCounts(cargo.slice(0, cargo.indexOf('failures:')))).toMatchObject({ runner: 'cargo test', passed: 2, failed: 1, skipped: 1, final: false });
    const go = fixture('go-test.txt');
    expect(parseTestCounts(go.slice(0, go.indexOf('--- FAIL')))).toEqual({ runner: 'go test', passed: 2, failed: 0, skipped: 0, final: false });
    expect(parseTestCounts('test_a.py ..F.s    [ 50%]\n')).toEqual({ runner: 'pytest', passed: 3, failed: 1, skipped: 1, final: false });
    expect(parseTestCounts(' ❯ a.test.ts (4 tests | 1 failed | 1 skipped) 9ms\n ✓ b.test.ts (3 tests) 2ms\n')).toEqual({
      runner: 'vitest',
      passed: 5,
      failed: 1,
      skipped: 1,
      final: false,
    });
  });

  it.each([
    ['vitest.txt', /^.*\bTests\b.*\(4\)/m],
    ['jest.txt', /^.*Tests:/m],
    ['node-test-tap.txt', /^# tests /m],
    ['node-test-spec.txt', /^ℹ tests /m],
    ['pytest.txt', /^.*=+ .*1 failed.* in [\d.]+s/m],
    ['go-test.txt', /^FAIL\texample\.com/m],
    ['cargo-test.txt', /^test result: /m],
  ] as const)('%s: counts are final only once the summary is there', (name, summary) => {
    const text = stripAnsi(fixture(name));
    const at = summary.exec(text)!.index;
    const before = parseTestCounts(text.slice(0, at));
    expect(before === undefined || before.final === false).toBe(true);
    expect(parseTestCounts(text.slice(0, text.indexOf('\n', at) + 1))).toMatchObject({ final: true });
  });

  it('finds no counts in output that is not a test run', () => {
    expect(parseTestCounts('compiling...\nbuilt in 3s\n')).toBeUndefined();
  });
});

describe('console text', () => {
  it('removes colours and control codes; a carriage-return line shows what it showed last', () => {
    expect(stripAnsi('\u001b[31mred\u001b[39m \u001b]8;;http://x\u0007link\u001b]8;;\u0007')).toBe('red link');
    expect(consoleLines('a\r\nprogress 10%\rprogress 90%\nb\n')).toEqual(['a', 'progress 90%', 'b']);
  });

  it('shows a run of identical lines once, marked [×N]', () => {
    expect(collapseRepeats(['x', 'waiting', 'waiting', 'waiting', 'y', 'y'])).toEqual(['x', 'waiting [×3]', 'y [×2]']);
  });

  it('tails the last lines and says when there were more', () => {
    expect(tailOf(['a', 'b', 'c'], 2)).toEqual({ tail: ['b', 'c'], truncated: true });
    expect(tailOf(['a'], 50)).toEqual({ tail: ['a'], truncated: false });
  });

  it('the recorded vitest output reads as plain text', () => {
    const { lines } = readConsole(fixture('vitest.txt'));
    expect(lines.join('\n')).not.toContain('\u001b');
    expect(lines.some((line) => /Tests\s+1 failed \| 2 passed \| 1 skipped \(4\)/.test(line))).toBe(true);
  });
});

describe('credentials are blanked as in the console', () => {
  it.each([
    ['Authorization: Bearer abc.def.ghi123', 'Authorization: [redacted]'],
    ['curl -H "authorization: Basic dXNlcjpwYXNz" x', 'curl -H "authorization: [redacted]" x'],
    ['git clone https://alice:s3cr3t@github.com/a/b', 'git clone https://alice:[redacted]@github.com/a/b'],
    ['key AKIAIOSFODNN7EXAMPLE used', 'key [redacted] used'],
    ['AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'AWS_SECRET_ACCESS_KEY=[redacted]'],
    ['token ghp_0123456789abcdefghijABCDEFGHIJ0123', 'token [redacted]'],
    ['using sk-ant-api03-abcdefghijklmnopqrstuvwxyz', 'using [redacted]'],
    ['DB_PASSWORD="hunter2"', 'DB_PASSWORD="[redacted]"'],
    ['{"api_key": "abc123"}', '{"api_key": "[redacted]"}'],
    ['admin rly_u_Q2hlY2sgdGhlIHRva2VuIGZvcm1hdCBoZXJlIQ-_x9 and rly_s_AbCdEfGhIjKlMnOpQrStUv', 'admin [redacted] and [redacted]'],
    ['{"userToken":"rly_u_Q2hlY2sgdGhlIHRva2VuIGZvcm1hdCBoZXJlIQ"}', '{"userToken":"[redacted]"}'],
  ])('%s', (input, expected) => {
    expect(redactCredentials(input)).toBe(expected);
  });

  it('blanks a private key block, also one cut off', () => {
    const key = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\nAAAAbm9uZQ\n-----END OPENSSH PRIVATE KEY-----\nafter';
    expect(redactCredentials(key)).toBe('-----BEGIN OPENSSH PRIVATE KEY----- [redacted] -----END OPENSSH PRIVATE KEY-----\nafter');
    expect(redactCredentials('-----BEGIN RSA PRIVATE KEY-----\nMIIEow')).not.toContain('MIIEow');
    // The kept end of an output that begins inside a key.
    expect(
      redactCredentials(
        'AAAAbm9uZQ\nb3BlbnNzaC1r\n-----END OPENSSH PRIVATE KEY-----\ndone\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----',
      ),
    ).toBe('[redacted] -----END OPENSSH PRIVATE KEY-----\ndone\n-----BEGIN RSA PRIVATE KEY----- [redacted] -----END RSA PRIVATE KEY-----');
  });

  it('leaves ordinary output alone', () => {
    const text = 'Tests  2 passed (2)\nhttps://example.com/path?x=1\npassword reset page rendered';
    expect(redactCredentials(text)).toBe(text);
  });
});

describe('task rules', () => {
  const startedAt = new Date('2026-10-18T09:00:00.000Z');

  it('stall: minutes since the last output (or the start), quiet from the relay setting on', () => {
    const lastOutputAt = new Date('2026-10-18T09:12:00.000Z');
    expect(stallOf({ startedAt, lastOutputAt }, new Date('2026-10-18T09:26:30.000Z'), 10)).toEqual({
      minutes: 14,
      since: lastOutputAt,
      quiet: true,
      quietAfterMinutes: 10,
    });
    expect(stallOf({ startedAt, lastOutputAt: null }, new Date('2026-10-18T09:09:59.000Z'), 10)).toMatchObject({ minutes: 9, since: startedAt, quiet: false });
  });

  it('output is kept while running and for an hour after the end', () => {
    const endedAt = new Date('2026-10-18T10:00:00.000Z');
    expect(isOutputKept({ status: 'running', endedAt: null }, new Date('2030-01-01'))).toBe(true);
    expect(isOutputKept({ status: 'failed', endedAt }, new Date(endedAt.getTime() + TASK_OUTPUT_KEPT_MS))).toBe(true);
    expect(isOutputKept({ status: 'completed', endedAt }, new Date(endedAt.getTime() + TASK_OUTPUT_KEPT_MS + 1))).toBe(false);
  });

  it('an idle session with a running task is background_only; a running turn or only ended tasks are not', () => {
    expect(isBackgroundOnly(true, [{ status: 'completed' }, { status: 'running' }])).toBe(true);
    expect(isBackgroundOnly(true, [{ status: 'completed' }, { status: 'failed' }, { status: 'stopped' }])).toBe(false);
    expect(isBackgroundOnly(true, [])).toBe(false);
    expect(isBackgroundOnly(false, [{ status: 'running' }])).toBe(false);
  });
});
