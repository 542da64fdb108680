/**
 * Test-run counts read from a task's plain output (pure): vitest, jest, node:test (TAP and spec
 * reporters), pytest, go test and cargo test. A runner's final summary gives final counts; before
 * it, the per-test or per-file lines printed so far give counts so far (final: false).
 */

export type TestRunner = 'vitest' | 'jest' | 'node:test' | 'pytest' | 'go test' | 'cargo test';

export interface TestCounts {
  runner: TestRunner;
  passed: number;
  failed: number;
  skipped: number;
  /** The runner printed its summary: these are the run's counts, not counts so far. */
  final: boolean;
}

type Tally = Omit<TestCounts, 'runner' | 'final'>;

/** The counts of the test run in `text` (ANSI already removed), or undefined when it shows none. */
export function parseTestCounts(text: string): TestCounts | undefined {
  for (const parse of FINAL) {
    const counts = parse(text);
    if (counts) return counts;
  }
  for (const parse of SO_FAR) {
    const counts = parse(text);
    if (counts) return counts;
  }
  return undefined;
}

const number = (value: string | undefined): number => (value === undefined ? 0 : Number(value));

/** Numbers before the words of a "2 passed, 1 failed"-style summary. */
function tallyWords(summary: string, words: { passed: string[]; failed: string[]; skipped: string[] }): Tally {
  const tally: Tally = { passed: 0, failed: 0, skipped: 0 };
  for (const match of summary.matchAll(/(\d+) ([a-z]+)/g)) {
    const word = match[2]!;
    for (const key of ['passed', 'failed', 'skipped'] as const) {
      if (words[key].includes(word)) tally[key] += number(match[1]);
    }
  }
  return tally;
}

function lastMatch(text: string, pattern: RegExp): RegExpMatchArray | undefined {
  let last: RegExpMatchArray | undefined;
  for (const match of text.matchAll(pattern)) last = match;
  return last;
}

const FINAL: readonly ((text: string) => TestCounts | undefined)[] = [
  // vitest: "      Tests  1 failed | 2 passed | 1 skipped (4)"
  (text) => {
    const match = lastMatch(text, /^\s*Tests\s{2,}((?:\d+ [a-z]+(?: \| )?)+)\s*\(\d+\)\s*$/gm);
    if (!match) return undefined;
    return { runner: 'vitest', ...tallyWords(match[1]!, { passed: ['passed'], failed: ['failed'], skipped: ['skipped', 'todo'] }), final: true };
  },
  // jest: "Tests:       1 failed, 1 skipped, 2 passed, 4 total"
  (text) => {
    const match = lastMatch(text, /^Tests:\s+(.*\d+ total)\s*$/gm);
    if (!match) return undefined;
    return { runner: 'jest', ...tallyWords(match[1]!, { passed: ['passed'], failed: ['failed'], skipped: ['skipped', 'todo', 'pending'] }), final: true };
  },
  // node:test: "# tests 4" … "# pass 1" (TAP) or "ℹ tests 4" … (spec).
  (text) => {
    if (!/^(?:#|ℹ) tests \d+\s*$/m.test(text)) return undefined;
    const count = (name: string) => number(lastMatch(text, new RegExp(`^(?:#|ℹ) ${name} (\\d+)\\s*$`, 'gm'))?.[1]);
    return { runner: 'node:test', passed: count('pass'), failed: count('fail') + count('cancelled'), skipped: count('skipped') + count('todo'), final: true };
  },
  // pytest: "==== 1 failed, 2 passed, 1 skipped in 1.87s ===="
  (text) => {
    const match = lastMatch(text, /^=+ (.*?) in [\d.]+s(?: \([^)]*\))? =+\s*$/gm);
    if (!match || !/\d+ (?:passed|failed|skipped|errors?|xfailed|xpassed|deselected)|no tests ran/.test(match[1]!)) return undefined;
    return {
      runner: 'pytest',
      ...tallyWords(match[1]!, { passed: ['passed', 'xpassed'], failed: ['failed', 'error', 'errors'], skipped: ['skipped', 'xfailed'] }),
      final: true,
    };
  },
  // cargo test: one "test result: FAILED. 2 passed; 1 failed; 1 ignored; …" per test binary.
  (text) => {
    const results = [...text.matchAll(/^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored;/gm)];
    if (results.length === 0) return undefined;
    const sum = (group: number) => results.reduce((total, match) => total + number(match[group]), 0);
    return { runner: 'cargo test', passed: sum(1), failed: sum(2), skipped: sum(3), final: !/^test \S+ \.\.\. /m.test(text.slice(results.at(-1)!.index)) };
  },
  // go test: per-test "--- PASS:" lines, final once a package result ("ok  pkg 0.1s", "FAIL\tpkg 0.1s") follows the last.
  (text) => {
    const tally = goTally(text);
    if (!tally) return undefined;
    const lastTest = lastMatch(text, /^--- (?:PASS|FAIL|SKIP): /gm)?.index ?? 0;
    const packageLine = lastMatch(text, /^(?:ok|FAIL)\s+\S+\s+(?:[\d.]+s|\(cached\))/gm)?.index ?? -1;
    return packageLine > lastTest ? { runner: 'go test', ...tally, final: true } : undefined;
  },
];

function goTally(text: string): Tally | undefined {
  // Only top-level tests: a subtest's line is indented and its parent's line counts it already.
  const lines = [...text.matchAll(/^--- (PASS|FAIL|SKIP): /gm)].map((match) => match[1]);
  if (lines.length === 0) return undefined;
  return {
    passed: lines.filter((status) => status === 'PASS').length,
    failed: lines.filter((status) => status === 'FAIL').length,
    skipped: lines.filter((status) => status === 'SKIP').length,
  };
}

const SO_FAR: readonly ((text: string) => TestCounts | undefined)[] = [
  (text) => {
    const tally = goTally(text);
    return tally && { runner: 'go test', ...tally, final: false };
  },
  // cargo test: "test tests::adds ... ok"
  (text) => {
    const results = [...text.matchAll(/^test \S+ \.\.\. (ok|FAILED|ignored)\b/gm)].map((match) => match[1]);
    if (results.length === 0) return undefined;
    return {
      runner: 'cargo test',
      passed: results.filter((result) => result === 'ok').length,
      failed: results.filter((result) => result === 'FAILED').length,
      skipped: results.filter((result) => result === 'ignored').length,
      final: false,
    };
  },
  // node:test TAP: "ok 1 - adds", "not ok 2 - fails", "ok 3 - later # SKIP"; top level only.
  (text) => {
    const results = [...text.matchAll(/^(not ok|ok) \d+ - .*?(# (?:SKIP|TODO)\b.*)?$/gm)];
    if (results.length === 0) return undefined;
    const skipped = results.filter((match) => match[2] !== undefined).length;
    return {
      runner: 'node:test',
      passed: results.filter((match) => match[1] === 'ok' && match[2] === undefined).length,
      failed: results.filter((match) => match[1] === 'not ok' && match[2] === undefined).length,
      skipped,
      final: false,
    };
  },
  // pytest: "test_a.py ..F.s                [ 80%]"
  (text) => {
    const rows = [...text.matchAll(/^\S+\.py ([.FEsxX]+)\s*(?:\[\s*\d+%\])?\s*$/gm)].map((match) => match[1]!).join('');
    if (rows === '') return undefined;
    const count = (marks: string) => [...rows].filter((mark) => marks.includes(mark)).length;
    return { runner: 'pytest', passed: count('.X'), failed: count('FE'), skipped: count('sx'), final: false };
  },
  // vitest: a line per finished file, "✓ a.test.ts (3 tests) 5ms" or "❯ a.test.ts (4 tests | 1 failed | 1 skipped) 9ms".
  (text) => {
    const files = [...text.matchAll(/^\s*[✓❯×] \S+ \((\d+) tests?((?: \| \d+ [a-z]+)*)\)/gm)];
    if (files.length === 0) return undefined;
    const tally: Tally = { passed: 0, failed: 0, skipped: 0 };
    for (const file of files) {
      const extra = tallyWords(file[2]!, { passed: [], failed: ['failed'], skipped: ['skipped', 'todo'] });
      tally.failed += extra.failed;
      tally.skipped += extra.skipped;
      tally.passed += number(file[1]) - extra.failed - extra.skipped;
    }
    return { runner: 'vitest', ...tally, final: false };
  },
];
