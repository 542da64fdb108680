/**
 * Every ```ts sample in the repository's READMEs type-checks against the code as it is now, so a page cannot go on
 * documenting an API that changed. Each sample is compiled as a module standing in its README's folder (its imports
 * resolve as that package's own would), with the repository's compiler options; what it takes from its context it
 * says with `declare` lines. A fragment that is not meant to compile is not a ```ts sample: use ```text.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

interface Sample {
  readme: string;
  line: number;
  code: string;
}

/** The ```ts (or ```typescript) blocks of every README git knows. */
function samples(): Sample[] {
  const readmes = execFileSync('git', ['ls-files', '--', 'README.md', '**/README.md'], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);
  return readmes.flatMap((readme) => {
    const lines = readFileSync(join(root, readme), 'utf8').split('\n');
    const found: Sample[] = [];
    for (let i = 0; i < lines.length; i += 1) {
      if (!/^```(ts|typescript)\s*$/.test(lines[i]!)) continue;
      const end = lines.indexOf('```', i + 1);
      found.push({ readme, line: i + 1, code: lines.slice(i + 1, end).join('\n') });
      i = end;
    }
    return found;
  });
}

/** The compiler's errors for the samples, each compiled as `<README's folder>/readme-sample-<line>.ts`. */
function typeErrors(all: Sample[]): Map<Sample, string[]> {
  const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined })!;
  const files = new Map(all.map((sample) => [join(root, dirname(sample.readme), `readme-sample-${sample.line}.ts`), sample] as const));
  const host = ts.createCompilerHost(config.options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (name) => files.has(name) || fileExists(name);
  host.readFile = (name) => files.get(name)?.code ?? readFile(name);
  host.getSourceFile = (name, language, ...rest) => {
    const sample = files.get(name);
    return sample === undefined ? getSourceFile(name, language, ...rest) : ts.createSourceFile(name, sample.code, language, true);
  };
  const program = ts.createProgram([...files.keys()], config.options, host);
  const errors = new Map<Sample, string[]>(all.map((sample) => [sample, []]));
  for (const [name, sample] of files) {
    const source = program.getSourceFile(name)!;
    for (const diagnostic of [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]) {
      const at = diagnostic.start === undefined ? 0 : source.getLineAndCharacterOfPosition(diagnostic.start).line;
      errors.get(sample)!.push(`${sample.readme}:${sample.line + 1 + at}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`);
    }
  }
  return errors;
}

describe("the READMEs' TypeScript samples", () => {
  const all = samples();
  const errors = typeErrors(all);

  it('there are samples to check', () => {
    expect(all.length).toBeGreaterThan(0);
  });

  it.each(all.map((sample) => [`${sample.readme}:${sample.line}`, sample] as const))('%s type-checks', (_where, sample) => {
    expect(errors.get(sample)).toEqual([]);
  });
});
