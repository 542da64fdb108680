#!/usr/bin/env node
// `npm test`: generate, check the generated proto code, then every test (unit, integration, end to end) while the
// code checks (the protos' lint and breaking changes, type-check, lint, dead code) run beside them at a lower
// priority: the tests often wait on their servers, and the checks use the cores meanwhile.
// Needs PostgreSQL (DATABASE_URL or 127.0.0.1:5432) and `nats-server` on the PATH; .ci/run provides both.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const env = { ...process.env, TURBO_TELEMETRY_DISABLED: '1', DO_NOT_TRACK: '1' };

/** Each step's wall time in seconds, printed at the end. */
const steps = [];
const suiteStarted = Date.now();

function run(title, command, args, options = {}) {
  process.stdout.write(`\n▶ ${title}\n`);
  const started = Date.now();
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env, ...options });
  steps.push([title, (Date.now() - started) / 1000]);
  if (result.status !== 0) {
    process.stderr.write(`✖ ${title} failed (exit ${result.status ?? result.signal})\n`);
    process.exit(result.status ?? 1);
  }
}

function git(...args) {
  return spawnSync('git', args, { cwd: root, encoding: 'utf8' });
}

run("generate (Prisma clients, the user API's OpenAPI document and types)", 'npx', ['turbo', 'run', 'generate', '--output-logs=errors-only']);
// The user API's contract (docs/adr/0038): its document and the types the console and the CLI use, as generate wrote them.
const userApiFiles = ['packages/user-api/openapi.json', 'packages/user-api/src/gen'];
if (git('status', '--porcelain', '--', ...userApiFiles).stdout.trim() !== '') {
  process.stderr.write(git('status', '--short', '--', ...userApiFiles).stdout);
  process.stderr.write(`✖ ${userApiFiles.join(' and ')} differ from the gateway's routes: run \`npm run generate\` and commit them\n`);
  process.exit(1);
}
run('generated proto code is up to date', 'npx', ['buf', 'generate'], { cwd: `${root}/proto` });
if (git('diff', '--quiet', '--', 'packages/proto/src/gen').status !== 0) {
  git('diff', '--stat', '--', 'packages/proto/src/gen');
  process.stderr.write('✖ packages/proto/src/gen differs from `buf generate`: regenerate and commit it\n');
  process.exit(1);
}
// The protos must stay wire-compatible (buf's FILE rules) with what runs before this tree: the last release (the newest
// `v*` tag, or RELAY_UPGRADE_FROM), and main's parent. A revision this clone does not hold (a shallow checkout) is
// named and skipped, never silently. test/database/upgrade-compatibility.test.ts does the same for the databases.
const protoBases = [
  ...new Set([process.env.RELAY_UPGRADE_FROM || git('describe', '--tags', '--abbrev=0', '--match', 'v*', 'HEAD').stdout.trim(), 'HEAD~1'].filter(Boolean)),
];
for (const revision of protoBases.filter((revision) => git('cat-file', '-e', `${revision}:proto`).status !== 0)) {
  process.stdout.write(`buf breaking: ${revision} has no proto/ in this clone; not compared against it\n`);
}
const breakingChecks = protoBases
  .filter((revision) => git('cat-file', '-e', `${revision}:proto`).status === 0)
  .map((revision) => [
    `buf breaking (against ${revision})`,
    'npx',
    ['buf', 'breaking', '--against', `${root}/.git#ref=${revision},subdir=proto`],
    { cwd: `${root}/proto` },
  ]);
const checks = runChecks([
  // The protos' lint and breaking-change check only read them: they need not hold up the tests.
  ['buf lint', 'npx', ['buf', 'lint'], { cwd: `${root}/proto` }],
  ...breakingChecks,
  // One program for everything but the console (tsconfig.json), so each shared file is checked once, not once per
  // workspace that imports it; the console has its own (DOM, JSX).
  ['typecheck (services, packages, CLI, tests, benches)', 'npx', ['tsc', '-p', 'tsconfig.json', ...incremental('tsconfig')]],
  ['typecheck (console)', 'npx', ['tsc', '-p', 'console', ...incremental('console')]],
  ['lint (ESLint: typescript-eslint and the layering rule, eslint.config.mjs)', 'npx', ['eslint', '.', '--max-warnings=0']],
  ['dead code (knip: unused files, exports and dependencies, knip.jsonc)', 'npx', ['knip', '--no-progress']],
  // One format for the code (.prettierrc.json; .prettierignore leaves generated code and non-code files alone):
  // `npm run format` writes it. Like tsc, it keeps what it checked in .relay/: a file whose content, prettier and
  // options are unchanged since it passed is not formatted again (a tenth of the CPU of a whole check).
  [
    'format (prettier --check; npm run format fixes it)',
    'npx',
    ['prettier', '--check', '.', '--log-level', 'warn', '--cache', '--cache-strategy', 'content', '--cache-location', '.relay/prettier-cache'],
  ],
]);
// RELAY_BUILD_IMAGES=1 (.ci/run): the images are built beside the tests, niced like the checks, on a stand-in base
// (scripts/build-local-base.sh) unless NODE_IMAGE names one; test/images waits for the status file, then checks them.
const imagesBuilt = process.env.RELAY_BUILD_IMAGES === '1' ? buildImages() : undefined;
const results = `${root}/.relay/test-results.json`;
// vitest.config.ts appends every unhandled error here; a CI log that keeps only its tail still shows them.
const unhandled = `${root}/.relay/unhandled-errors.txt`;
rmSync(unhandled, { force: true });
const testsStarted = Date.now();
const tests = await exited(
  spawn('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${results}`, ...process.argv.slice(2)], {
    cwd: root,
    stdio: 'inherit',
    env,
  }),
);
await imagesBuilt;
if (existsSync(results)) {
  const { numPassedTests, numFailedTests, numPendingTests, numTodoTests, testResults } = JSON.parse(readFileSync(results, 'utf8'));
  for (const file of testResults) {
    for (const test of file.assertionResults.filter((result) => result.status === 'failed')) {
      process.stdout.write(`✖ ${relative(root, file.name)} > ${test.fullName}\n`);
    }
  }
  process.stdout.write(`\ntests: ${numPassedTests} passed, ${numFailedTests} failed, ${numPendingTests + numTodoTests} skipped\n`);
  printDurations(testResults);
}
steps.push(['vitest', (Date.now() - testsStarted) / 1000]);
const failedCheck = await checks;
process.stdout.write('duration per step (the code checks ran beside vitest):\n');
for (const [title, seconds] of steps) process.stdout.write(`  ${seconds.toFixed(0).padStart(5)} s  ${title}\n`);
process.stdout.write(`  ${((Date.now() - suiteStarted) / 1000).toFixed(0).padStart(5)} s  in all\n`);
if (existsSync(unhandled)) process.stdout.write(`\nunhandled errors (each fails the run):\n${readFileSync(unhandled, 'utf8')}`);
if (failedCheck) process.stderr.write(`✖ ${failedCheck} failed (its output is above)\n`);
process.exit(failedCheck ? 1 : (tests.status ?? 1));

/**
 * Builds every image (scripts/build-images.sh, tagged ci) in the background; the tests find them as RELAY_TEST_IMAGES
 * once RELAY_IMAGES_BUILT holds the build's exit status. Resolves when the build has ended.
 */
function buildImages() {
  const statusFile = `${root}/.relay/images-built`;
  const log = `${root}/.relay/images-build.log`;
  mkdirSync(`${root}/.relay`, { recursive: true });
  rmSync(statusFile, { force: true });
  Object.assign(env, { RELAY_TEST_IMAGES: 'relay/*:ci', RELAY_IMAGES_BUILT: statusFile, RELAY_IMAGES_BUILD_LOG: log });
  const began = Date.now();
  // What earlier runs left untagged (their build layers, images a newer build took the tag from) goes first: each
  // run stores some 10 GB, and JetStream refuses new streams once the disk runs low.
  const script = 'buildah rmi --prune >/dev/null 2>&1; NODE_IMAGE="${NODE_IMAGE:-$(scripts/build-local-base.sh)}" TAG=ci scripts/build-images.sh';
  const child = spawn('bash', ['-c', `nice -n 10 bash -c '${script}' > '${log}' 2>&1; echo $? > '${statusFile}'`], { cwd: root, env, stdio: 'ignore' });
  return exited(child).then(() => {
    steps.push(['images (scripts/build-images.sh, beside the tests)', (Date.now() - began) / 1000]);
    process.stdout.write(`\n${readFileSync(log, 'utf8').split('\n').slice(-13).join('\n')}\n`);
  });
}

/**
 * tsc's options to keep what it learnt of a program in .relay/tsc/ and check again only the files a change can
 * affect (a run after a small edit takes a quarter of the CPU of a whole check; a fresh checkout checks everything).
 */
function incremental(name) {
  return ['--incremental', '--tsBuildInfoFile', `.relay/tsc/${name}.tsbuildinfo`];
}

/** A child's exit code, or its signal, once it has exited. */
function exited(child) {
  return new Promise((resolve) => child.once('close', (status, signal) => resolve({ status, signal })));
}

/**
 * Runs the checks one after the other, niced below the tests, each one's output held and printed as one block when
 * it ends (so it does not interleave with vitest's). Resolves with the first failed check's title, or undefined.
 */
async function runChecks(list) {
  for (const [title, command, args, options = {}] of list) {
    const began = Date.now();
    const child = spawn('nice', ['-n', '10', command, ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], ...options });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const { status, signal } = await exited(child);
    steps.push([title, (Date.now() - began) / 1000]);
    if (status !== 0) {
      process.stdout.write(`\n✖ ${title} failed (exit ${status ?? signal}):\n${output}\n`);
      return title;
    }
    process.stdout.write(`\n✔ ${title} (${((Date.now() - began) / 1000).toFixed(0)} s)${output.trim() === '' ? '' : `\n${output}`}\n`);
  }
  return undefined;
}

/** The project a test file belongs to, by the same patterns as vitest.config.ts. */
function projectOf(file) {
  if (/^test\/(k8s|architecture)\//.test(file)) return 'static';
  if (file === 'test/e2e/paired-relays.test.ts') return 'e2e-four-relays';
  if (file.startsWith('test/')) return 'e2e';
  return file.endsWith('.int.test.ts') ? 'integration' : 'unit';
}

/**
 * Each project's wall time (its first file's start to its last file's end) and the time spent in its files (summed,
 * so files run side by side count fully), then the slowest files.
 */
function printDurations(testResults) {
  const files = testResults.map((result) => ({
    file: relative(root, result.name),
    start: result.startTime,
    end: result.endTime,
    seconds: (result.endTime - result.startTime) / 1000,
  }));
  const byProject = new Map();
  for (const { file, start, end, seconds } of files) {
    const project = byProject.get(projectOf(file)) ?? { start, end, seconds: 0 };
    byProject.set(projectOf(file), { start: Math.min(project.start, start), end: Math.max(project.end, end), seconds: project.seconds + seconds });
  }
  process.stdout.write('duration per project (wall, time in files):\n');
  for (const [project, { start, end, seconds }] of byProject) {
    process.stdout.write(`  ${project.padEnd(12)} ${((end - start) / 1000).toFixed(0).padStart(5)} s  ${seconds.toFixed(0).padStart(5)} s\n`);
  }
  process.stdout.write('slowest files:\n');
  for (const { file, seconds } of files.sort((a, b) => b.seconds - a.seconds).slice(0, 8)) {
    process.stdout.write(`  ${seconds.toFixed(1).padStart(6)} s  ${file}\n`);
  }
}
