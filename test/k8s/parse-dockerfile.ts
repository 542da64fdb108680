// Reads a Dockerfile the way BuildKit does for the parts the offline checks need: stages, COPY sources and
// destinations, RUN commands, USER, WORKDIR, CMD/ENTRYPOINT. No Docker engine is needed (or available).
import { existsSync, statSync } from 'node:fs';
import { posix } from 'node:path';

export type Instruction = { keyword: string; flags: Record<string, string>; args: string[]; raw: string };
export type Stage = { image: string; name?: string; instructions: Instruction[] };
export type Dockerfile = { stages: Stage[] };

/** Splits into instructions (joining `\` continuations, dropping comments) grouped by stage. */
export function parseDockerfile(text: string): Dockerfile {
  const logical: string[] = [];
  let pending = '';
  for (const line of text.split('\n')) {
    if (pending === '' && /^\s*#/.test(line)) continue;
    if (/\\\s*$/.test(line)) {
      pending += `${line.replace(/\\\s*$/, '')} `;
      continue;
    }
    const joined = `${pending}${line}`.trim();
    pending = '';
    if (joined !== '') logical.push(joined);
  }
  const stages: Stage[] = [];
  // ARGs before the first FROM, with their defaults: a FROM may name its image through one (`FROM ${NODE_IMAGE}`).
  const globalArgs = new Map<string, string>();
  for (const raw of logical) {
    const [keyword = '', ...rest] = raw.split(/\s+/);
    const flags: Record<string, string> = {};
    const words = [...rest];
    // Only leading --name=value words are the instruction's flags (later ones belong to the command).
    for (let flag = /^--([\w-]+)=(.*)$/.exec(words[0] ?? ''); flag; flag = /^--([\w-]+)=(.*)$/.exec(words[0] ?? '')) {
      flags[flag[1]!] = flag[2]!;
      words.shift();
    }
    const exec = /^\s*\[/.test(words.join(' ')) ? (JSON.parse(words.join(' ')) as string[]) : words;
    const instruction = { keyword: keyword.toUpperCase(), flags, args: exec, raw };
    if (instruction.keyword === 'ARG' && stages.length === 0) {
      const [name = '', value = ''] = (exec[0] ?? '').split(/=(.*)/s);
      globalArgs.set(name, value);
    } else if (instruction.keyword === 'FROM') {
      const [written = '', as, name] = exec;
      const image = written.replace(/\$\{?(\w+)\}?/g, (_, arg: string) => globalArgs.get(arg) ?? '');
      stages.push({ image, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
    } else if (stages.length > 0) {
      stages.at(-1)!.instructions.push(instruction);
    }
  }
  return { stages };
}

/** The WORKDIR in force at the end of a stage ('/' when none). */
export function workdirOf(stage: Stage): string {
  return stage.instructions.filter((i) => i.keyword === 'WORKDIR').reduce((dir, i) => posix.resolve(dir, i.args[0] ?? '.'), '/');
}

/**
 * Where a path inside the image comes from in the build context, following COPY and COPY --from=<stage>;
 * undefined when no COPY provides it or the context lacks it.
 */
export function sourceInContext(file: Dockerfile, stageIndex: number, imagePath: string, contextDir: string): string | undefined {
  const stage = file.stages[stageIndex];
  if (stage === undefined) return undefined;
  let workdir = '/';
  const copies: { sources: string[]; dest: string; from?: string }[] = [];
  for (const instruction of stage.instructions) {
    if (instruction.keyword === 'WORKDIR') workdir = posix.resolve(workdir, instruction.args[0] ?? '.');
    if (instruction.keyword !== 'COPY') continue;
    const dest = instruction.args.at(-1) ?? '';
    const absolute = posix.resolve(workdir, dest) + (dest.endsWith('/') || dest === '.' || dest === './' ? '/' : '');
    copies.push({ sources: instruction.args.slice(0, -1), dest: absolute, from: instruction.flags['from'] });
  }
  for (const copy of copies.reverse()) {
    const destDir = copy.dest.replace(/\/$/, '');
    for (const source of copy.sources) {
      // A directory's contents land in the destination; a file lands in it (trailing /) or as it.
      const isDir = copy.from === undefined ? statSync(posix.join(contextDir, source), { throwIfNoEntry: false })?.isDirectory() === true : true;
      const fileTarget = copy.dest.endsWith('/') ? copy.dest + posix.basename(source) : copy.dest;
      let rest: string | undefined;
      if (isDir && (imagePath === destDir || imagePath.startsWith(`${destDir}/`))) rest = imagePath.slice(destDir.length);
      else if (imagePath === fileTarget) rest = '';
      if (rest === undefined) continue;
      const candidate = posix.join(source, rest);
      if (copy.from !== undefined) {
        const fromIndex = file.stages.findIndex((s, i) => s.name === copy.from || String(i) === copy.from);
        const resolved = sourceInContext(file, fromIndex, candidate, contextDir);
        if (resolved !== undefined) return resolved;
      } else if (existsSync(posix.join(contextDir, candidate))) {
        return candidate;
      }
    }
  }
  return undefined;
}
