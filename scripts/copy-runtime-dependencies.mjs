#!/usr/bin/env node
// The node_modules an image runs on: the third-party packages a bundle leaves external (esbuild's metafile
// lists them), found from the bundle's folder as Node finds them, and what those need in turn — their
// dependencies, their optional dependencies that are installed, their peer dependencies that are not optional.
// That is what `npm ci --omit=dev` would give the bundle, and nothing only a build needs (the prisma CLI,
// typescript, tsx, esbuild), whatever the workspaces declare. The Dockerfiles run it in their build stage:
//
//   node scripts/copy-runtime-dependencies.mjs <metafile> <destination>
//
// Run from the folder the metafile's paths are relative to (the repository root, as scripts/build.mjs and the
// Dockerfiles build). Each package's folder is copied to the same relative path under <destination>, without its
// own node_modules (the packages nested there are copied only when needed), so Node resolves as in the build.
import { cpSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageDirFrom, packageName } from './build.mjs';

/** The folders of the packages `metafile`'s outputs import at run time and of everything they need, sorted. */
function runtimePackageDirs(metafile, root) {
  const found = new Set();
  const pending = [];
  const add = (dir) => {
    if (found.has(dir)) return;
    const where = relative(root, dir);
    if (where.startsWith('..') || !where.split(sep).includes('node_modules')) throw new Error(`${dir} is not a package installed under ${root}`);
    found.add(dir);
    pending.push(dir);
  };
  const need = (fromDir, name, neededBy) => {
    const dir = packageDirFrom(fromDir, name);
    if (dir === undefined) throw new Error(`${name} (needed by ${neededBy}) is not installed`);
    add(dir);
  };
  for (const [output, { imports }] of Object.entries(metafile.outputs)) {
    for (const { path, external } of imports) {
      if (external && !isBuiltin(path)) need(dirname(resolve(root, output)), packageName(path), output);
    }
  }
  while (pending.length > 0) {
    const dir = pending.pop();
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const optional = new Set([
      ...Object.keys(pkg.optionalDependencies ?? {}),
      ...Object.keys(pkg.peerDependencies ?? {}).filter((name) => pkg.peerDependenciesMeta?.[name]?.optional === true),
    ]);
    for (const name of Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies })) {
      if (!optional.has(name)) need(dir, name, pkg.name);
    }
    // An optional dependency is one for another platform when npm did not install it.
    for (const name of Object.keys(pkg.optionalDependencies ?? {})) {
      const installed = packageDirFrom(dir, name);
      if (installed !== undefined) add(installed);
    }
  }
  return [...found].sort();
}

/** Copies each of `dirs` (under `root`) to the same relative path under `destination`, without its node_modules. */
function copyPackages(dirs, root, destination) {
  for (const dir of dirs) {
    cpSync(dir, join(destination, relative(root, dir)), {
      recursive: true,
      verbatimSymlinks: true,
      filter: (source) => relative(dir, source).split(sep)[0] !== 'node_modules',
    });
  }
}

function main(args) {
  const [metafilePath, destination] = args;
  if (metafilePath === undefined || destination === undefined || args.length !== 2) {
    process.stderr.write('usage: node scripts/copy-runtime-dependencies.mjs <metafile> <destination>\n');
    return 2;
  }
  const root = process.cwd();
  try {
    const dirs = runtimePackageDirs(JSON.parse(readFileSync(metafilePath, 'utf8')), root);
    copyPackages(dirs, root, resolve(destination));
    process.stdout.write(`${dirs.length} packages the bundles of ${metafilePath} run on, copied to ${destination}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`copy-runtime-dependencies: ${error instanceof Error ? error.message : error}\n`);
    return 1;
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
