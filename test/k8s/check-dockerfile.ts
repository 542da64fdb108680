// What can be checked of an image without building it: what it copies exists in the build context (the
// repository root) and is not ignored, its Node major is an LTS one that `engines` allows, it runs as a
// numeric non-root user, its node_modules are the packages its bundle runs on (scripts/copy-runtime-dependencies.mjs,
// nothing installed in the runtime stage), and what it starts exists.
import { statSync } from 'node:fs';
import { posix } from 'node:path';
import { parseDockerfile, sourceInContext, workdirOf, type Dockerfile } from './parse-dockerfile.ts';

export type ImageSpec = {
  /** The Dockerfile's text. */
  text: string;
  /** Its `<Dockerfile>.dockerignore` patterns (BuildKit reads that file beside the Dockerfile). */
  ignore: string[];
  /** The build context on disk: the repository root. */
  contextDir: string;
  /** The workspace the image runs the bundle of (its dist/, built by `npm run build`), e.g. `services/session`. */
  workspace: string;
  /** The `engines.node` ranges the image's Node must satisfy (root's and the workspace's). */
  engines: string[];
  /** The command the final stage must run (argv), e.g. the workspace's `npm start` script. */
  command: string[];
  /** Scripts the build stage must run with `npm run <script> --workspace <workspace>` (e.g. generate). */
  buildScripts: string[];
  /** Paths inside the final image that must come from the context (entry files, migrations). */
  requiredPaths: string[];
};

/** The violations of one image spec; [] means every check passes. */
export function dockerfileViolations(spec: ImageSpec): string[] {
  const file = parseDockerfile(spec.text);
  const found: string[] = [];
  if (file.stages.length < 2) found.push('not multi-stage (a build stage and a runtime stage)');
  found.push(...copyViolations(file, spec), ...nodeViolations(file, spec.engines));
  const final = file.stages.at(-1);
  if (final === undefined) return found;

  const user = final.instructions.filter((i) => i.keyword === 'USER').at(-1)?.args[0];
  const uid = /^(\d+)(:\d+)?$/.exec(user ?? '')?.[1];
  if (uid === undefined) found.push(`USER ${user ?? '(none)'} is not numeric (Kubernetes cannot check runAsNonRoot)`);
  else if (Number(uid) === 0) found.push('USER is root');

  const runs = file.stages.slice(0, -1).flatMap((stage) => stage.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args.join(' ')));
  found.push(...runtimeDependencyViolations(file, spec));
  for (const script of spec.buildScripts) {
    if (!runs.some((run) => runsScript(run, script, spec.workspace))) {
      found.push(`no build step runs npm run ${script} --workspace ${spec.workspace}`);
    }
  }

  const entrypoint = final.instructions.filter((i) => i.keyword === 'ENTRYPOINT').at(-1)?.args ?? [];
  const cmd = final.instructions.filter((i) => i.keyword === 'CMD').at(-1)?.args ?? [];
  const argv = [...entrypoint, ...cmd];
  if (argv.join(' ') !== spec.command.join(' ')) found.push(`runs "${argv.join(' ')}", expected "${spec.command.join(' ')}"`);
  const workdir = workdirOf(final);
  const entry = argv.find((arg, i) => i > 0 && /\.(m?[jt]s)$/.test(arg) && argv[i - 1] !== '--import');
  const finalIndex = file.stages.length - 1;
  for (const path of [...(entry ? [posix.resolve(workdir, entry)] : []), ...spec.requiredPaths]) {
    if (sourceInContext(file, finalIndex, path, spec.contextDir) === undefined && !isBuilt(file, path, spec))
      found.push(`${path} is not in the image (no COPY brings it)`);
  }
  return found;
}

/**
 * The runtime stage's node_modules: copied whole into /app from a build stage that gathered them with
 * `node scripts/copy-runtime-dependencies.mjs <workspace>/dist/meta.json <dir>` (what the bundle loads, production
 * dependencies only), and nothing installed by npm in the runtime stage itself.
 */
function runtimeDependencyViolations(file: Dockerfile, spec: ImageSpec): string[] {
  const found: string[] = [];
  const final = file.stages.at(-1)!;
  const trace = new RegExp(`^node scripts/copy-runtime-dependencies\\.mjs ${escape(spec.workspace)}/dist/meta\\.json (\\S+)$`);
  const gathered = file.stages.slice(0, -1).flatMap((stage) =>
    stage.instructions.flatMap((i) => {
      const dir = i.keyword === 'RUN' ? trace.exec(i.args.join(' '))?.[1] : undefined;
      return dir === undefined ? [] : [{ stage: stage.name, dir: dir.replace(/\/$/, '') }];
    }),
  );
  if (gathered.length === 0) found.push(`no build step runs node scripts/copy-runtime-dependencies.mjs ${spec.workspace}/dist/meta.json`);
  const copied = final.instructions.some(
    (i) =>
      i.keyword === 'COPY' &&
      i.args.length === 2 &&
      i.args[1]?.replace(/\/$/, '') === '/app' &&
      gathered.some((g) => g.stage === i.flags['from'] && i.args[0]?.replace(/\/$/, '') === g.dir),
  );
  if (gathered.length > 0 && !copied) found.push(`the runtime stage does not copy ${gathered[0]!.dir}/ (the bundle's dependencies) into /app/`);
  const installs = final.instructions.filter((i) => i.keyword === 'RUN' && /\bnpm (ci|install|i)\b/.test(i.args.join(' ')));
  for (const install of installs) found.push(`the runtime stage installs packages itself: ${install.raw}`);
  return found;
}

/**
 * Whether `path` is the workspace's bundle (`/app/<workspace>/dist/…`) copied from a stage that runs
 * `npm run build --workspace <workspace>` over the workspace's sources (its src/main.ts, or src/bin/<name>.ts for a
 * command, from the context).
 */
function isBuilt(file: Dockerfile, path: string, spec: ImageSpec): boolean {
  const dist = `/app/${spec.workspace}/dist`;
  if (!path.startsWith(`${dist}/`)) return false;
  const final = file.stages.at(-1)!;
  const copy = final.instructions.find(
    (i) => i.keyword === 'COPY' && i.flags['from'] !== undefined && i.args.at(-1)?.replace(/\/$/, '') === dist && i.args[0]?.replace(/\/$/, '') === dist,
  );
  const fromIndex = file.stages.findIndex((stage) => stage.name === copy?.flags['from']);
  const from = file.stages[fromIndex];
  if (from === undefined) return false;
  const builds = from.instructions.some((i) => i.keyword === 'RUN' && runsScript(i.args.join(' '), 'build', spec.workspace));
  // scripts/build.mjs: src/main.ts → dist/main.js, an operator command src/bin/<name>.ts → dist/<name>.js.
  const name = posix.basename(path, '.js');
  const source = name === 'main' ? 'src/main.ts' : `src/bin/${name}.ts`;
  return builds && sourceInContext(file, fromIndex, `/app/${spec.workspace}/${source}`, spec.contextDir) !== undefined;
}

function copyViolations(file: Dockerfile, spec: ImageSpec): string[] {
  const found: string[] = [];
  const ignored = spec.ignore.map(ignorePattern);
  for (const stage of file.stages) {
    for (const copy of stage.instructions.filter((i) => i.keyword === 'COPY' && i.flags['from'] === undefined)) {
      for (const source of copy.args.slice(0, -1)) {
        const path = posix.normalize(source).replace(/\/$/, '');
        if (!exists(posix.join(spec.contextDir, path))) found.push(`COPY ${source}: not in the build context`);
        else if (ignored.some((pattern) => pattern.test(path))) found.push(`COPY ${source}: excluded by the dockerignore file`);
      }
    }
  }
  return found;
}

/** Every stage on `node:<major>-slim` (or -bookworm-slim…), an even (LTS) major that each engines range allows. */
function nodeViolations(file: Dockerfile, engines: string[]): string[] {
  const found: string[] = [];
  for (const stage of file.stages) {
    const major = /^node:(\d+)(\.[\d.]+)?-([a-z]+-)?slim(@sha256:[0-9a-f]{64})?$/.exec(stage.image)?.[1];
    if (major === undefined) {
      found.push(`FROM ${stage.image}: not a node:<major>-slim image`);
      continue;
    }
    if (Number(major) % 2 !== 0) found.push(`FROM ${stage.image}: Node ${major} is not an LTS line`);
    for (const range of engines) {
      if (!satisfiesMajor(Number(major), range)) found.push(`FROM ${stage.image}: Node ${major} does not satisfy engines "${range}"`);
    }
  }
  return found;
}

/**
 * Whether every release of `major` from its latest minor on satisfies an engines range — the forms used
 * here (`>=20.19`, `^24`, `20 || 22`, `>=20 <25`); anything else throws rather than guess.
 */
export function satisfiesMajor(major: number, range: string): boolean {
  return range.split('||').some((alternative) =>
    alternative
      .trim()
      .split(/\s+/)
      .every((comparator) => {
        const match = /^(>=|<=|>|<|\^|~|=)?v?(\d+)(?:\.(\d+|x))?(?:\.(\d+|x))?$/.exec(comparator);
        if (match === null) throw new Error(`unsupported engines range "${range}"`);
        const [, op = '=', wanted] = match;
        const want = Number(wanted);
        switch (op) {
          case '>=':
          case '>':
            return major > want || (major === want && op === '>=');
          case '<':
            return major < want;
          case '<=':
            return major <= want;
          default:
            return major === want;
        }
      }),
  );
}

/** Whether `run` runs `npm run <script>` for `workspace`, alone or among other `--workspace` flags. */
function runsScript(run: string, script: string, workspace: string): boolean {
  return new RegExp(`npm run ${escape(script)}(\\s+--workspace\\s+\\S+)*\\s+--workspace\\s+${escape(workspace)}(\\s|$)`).test(run);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A dockerignore line as a regular expression over context-relative paths (`**` any folders, `*` one name). */
function ignorePattern(line: string): RegExp {
  const body = line
    .replace(/^\//, '')
    .split(/(\*\*\/|\*\*|\*)/)
    .map((part) => (part === '**/' ? '(?:.*/)?' : part === '**' ? '.*' : part === '*' ? '[^/]*' : escape(part)))
    .join('');
  return new RegExp(`^${body}(?:/.*)?$`);
}

function exists(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false }) !== undefined;
}

/** The non-comment lines of a dockerignore file. */
export function readIgnoreLines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}
