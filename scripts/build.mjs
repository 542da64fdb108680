#!/usr/bin/env node
// `npm run build`: bundles a service's src/main.ts into services/<svc>/dist/main.js, with the OpenTelemetry
// hook beside it as dist/register.js and its operator commands (src/bin/*.ts) as dist/<name>.js, each with a
// source map. The tests, `relay up` and
// the images all start `node --enable-source-maps --import ./dist/register.js dist/main.js`. A workspace with
// commands and no service (@relay/db's relay-migrate, for the migration image) gets its commands only. The CLI's
// src/main.ts becomes cli/dist/main.js, which `relay` runs (cli/bin/launch-cli.mjs builds it again when stale).
//
//   node scripts/build.mjs                 builds the workspace in the current folder (its package.json's build)
//   node scripts/build.mjs --all           builds every service and the CLI
//   node scripts/build.mjs --all --stale   builds only those whose dist is missing or older than a source
//
// The @relay/* workspace packages and the service's generated Prisma client are bundled; every third-party
// package stays external and loads from node_modules at run time, where OpenTelemetry's instrumentations
// (grpc-js, http, pg, fastify) hook it. Both entries share one chunk for @relay/telemetry, so the SDK the hook
// starts is the one the service's shutdownTelemetry flushes.
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
/** The `relay` command's workspace. */
export const CLI_DIR = join(root, 'cli');
const TELEMETRY_REGISTER = join(root, 'packages/telemetry/src/register.ts');
/** The file that records what went into a build (esbuild's metafile), read to tell whether dist is stale. */
const META_FILE = 'meta.json';

/** Every service folder (a workspace under services/ with a src/main.ts). */
export function serviceDirs() {
  const services = join(root, 'services');
  return readdirSync(services)
    .map((name) => join(services, name))
    .filter((dir) => existsSync(join(dir, 'src', 'main.ts')));
}

/** What `--all` builds: every service, and the CLI. */
function builtDirs() {
  return [...serviceDirs(), CLI_DIR];
}

/** A service's dist is stale when it is missing, or when any file that went into it changed or is gone since. */
export function isStale(serviceDir) {
  const meta = join(serviceDir, 'dist', META_FILE);
  if (!existsSync(meta)) return true;
  const builtAt = statSync(meta).mtimeMs;
  const { inputs } = JSON.parse(readFileSync(meta, 'utf8'));
  // A command added since the build is an input no build has seen.
  if (Object.values(commandEntries(serviceDir)).some((entry) => !(relative(root, entry) in inputs))) return true;
  return Object.keys(inputs).some((input) => {
    const stat = statSync(join(root, input), { throwIfNoEntry: false });
    return stat === undefined || stat.mtimeMs > builtAt;
  });
}

/** The folder of package `name` that Node's resolution finds from `fromDir`, or undefined. */
export function packageDirFrom(fromDir, name) {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    if (dirname(dir) === dir) return undefined;
  }
}

/** `@scope/name/sub/path` → `@scope/name`; `name/sub` → `name`. */
export function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/**
 * Keeps third-party packages external. A bundled workspace file resolved them from its own folder, the bundle
 * resolves them from dist/: refuse the build when the two would load different copies (a nested node_modules).
 */
function externalThirdParty(outdir) {
  return {
    name: 'external-third-party',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.path.startsWith('@relay/') || args.path.startsWith('node:')) return undefined;
        const name = packageName(args.path);
        const fromSource = packageDirFrom(args.resolveDir, name);
        const fromBundle = packageDirFrom(outdir, name);
        if (fromSource !== fromBundle) {
          return {
            errors: [
              {
                text: `${name} resolves to ${fromSource ?? 'nothing'} from ${relative(root, args.importer)} but to ${fromBundle ?? 'nothing'} from ${relative(root, outdir)}: the bundle would load another copy`,
              },
            ],
          };
        }
        return { path: args.path, external: true };
      });
    },
  };
}

/**
 * Keeps the checkout's own scripts (scripts/*.mjs, which the CLI's `relay up` imports) as files of their own: each
 * finds the checkout from where it lies, which a copy inside dist/ would get wrong.
 */
function externalScripts(outdir) {
  return {
    name: 'external-scripts',
    setup(build) {
      build.onResolve({ filter: /^\.{1,2}\/.*\.mjs$/ }, (args) => {
        const script = resolve(args.resolveDir, args.path);
        if (dirname(script) !== join(root, 'scripts')) return undefined;
        return { path: relative(outdir, script), external: true };
      });
    },
  };
}

/** A service's commands for operators, `src/bin/<name>.ts` → `dist/<name>.js` (the gateway's create-user). */
function commandEntries(serviceDir) {
  const bin = join(serviceDir, 'src', 'bin');
  if (!existsSync(bin)) return {};
  return Object.fromEntries(
    readdirSync(bin)
      .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
      .map((name) => [basename(name, '.ts'), join(bin, name)]),
  );
}

/** Bundles one service, the CLI, or a workspace's commands alone, into its dist/, replacing each file whole (a relay starting meanwhile never reads half a file). */
export async function buildWorkspace(dir) {
  const { build } = await import('esbuild');
  const outdir = join(dir, 'dist');
  const main = join(dir, 'src', 'main.ts');
  // The CLI exports no telemetry, so it has no hook to start before its main.
  const entry = !existsSync(main) ? {} : dir === CLI_DIR ? { main } : { main, register: TELEMETRY_REGISTER };
  const result = await build({
    absWorkingDir: root,
    entryPoints: { ...entry, ...commandEntries(dir) },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    sourcemap: 'linked',
    // The source map's paths are relative to dist/, so stack traces name the TypeScript files in the checkout.
    sourcesContent: false,
    metafile: true,
    write: false,
    logLevel: 'warning',
    plugins: [externalScripts(outdir), externalThirdParty(outdir)],
  });
  mkdirSync(outdir, { recursive: true });
  const written = new Set();
  for (const file of result.outputFiles) {
    const temporary = `${file.path}.${process.pid}.tmp`;
    writeFileSync(temporary, file.contents);
    renameSync(temporary, file.path);
    written.add(basename(file.path));
  }
  const metaTemporary = join(outdir, `${META_FILE}.${process.pid}.tmp`);
  writeFileSync(metaTemporary, JSON.stringify(result.metafile));
  renameSync(metaTemporary, join(outdir, META_FILE));
  written.add(META_FILE);
  // Chunks of an earlier build (their names carry a content hash).
  for (const name of readdirSync(outdir)) {
    if (!written.has(name) && !name.endsWith('.tmp')) rmSync(join(outdir, name), { force: true, recursive: true });
  }
}

/** Builds the workspace in `dir` when its dist is stale. */
export async function buildIfStale(dir) {
  if (isStale(dir)) await buildWorkspace(dir);
}

/** Builds every service whose dist is stale, telling `onBuild` each one's name first; returns their names. */
export async function buildStaleServices(onBuild = (_name) => undefined) {
  const stale = serviceDirs().filter(isStale);
  for (const dir of stale) {
    onBuild(basename(dir));
    await buildWorkspace(dir);
  }
  return stale.map((dir) => basename(dir));
}

async function main(args) {
  if (args.includes('--all')) {
    for (const dir of builtDirs()) await (args.includes('--stale') ? buildIfStale(dir) : buildWorkspace(dir));
    return;
  }
  const dir = resolve(process.cwd());
  if (!existsSync(join(dir, 'src', 'main.ts')) && Object.keys(commandEntries(dir)).length === 0)
    throw new Error(`${dir} has no src/main.ts or src/bin/*.ts to build`);
  await buildWorkspace(dir);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((error) => {
    // esbuild has printed its errors already.
    if (!Array.isArray(error?.errors)) process.stderr.write(`${error?.stack ?? error}\n`);
    process.exit(1);
  });
}
