import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Where unhandled errors are written too, so `npm test` can repeat them under its last line, where CI logs keep them. */
const UNHANDLED_ERRORS_FILE = fileURLToPath(new URL('./.relay/unhandled-errors.txt', import.meta.url));
/** The projects that start services as processes run their prebuilt dist/, rebuilt first when stale. */
const BUILD_SERVICES = './scripts/vitest-build-services.mjs';
/** Starts the relay the end-to-end files share (test/harness/shared-relay.ts) when one first asks for it. */
const SHARED_RELAY = './test/harness/shared-relay.setup.ts';
const STATIC = ['test/k8s/**/*.test.ts', 'test/architecture/**/*.test.ts'];
/**
 * The end-to-end file that runs four relays at once. A relay holds up to some 20 PostgreSQL connections, so it runs
 * beside the unit and integration files rather than beside another end-to-end file with two relays of its own and the
 * shared one: seven relays would pass PostgreSQL's default limit of 100.
 */
const FOUR_RELAYS = ['test/e2e/paired-relays.test.ts'];
/** The file that checks the images npm test builds beside the tests (RELAY_BUILD_IMAGES): it waits for their build. */
const IMAGES = fromRoot('test/images/images.test.ts');
const INTEGRATION = ['{packages,services}/*/test/**/*.int.test.ts', 'cli/test/**/*.int.test.ts'];
/**
 * The integration files that use OpenTelemetry's globals (a tracer or meter provider takes one registration per
 * process, and some files assert there is none): found by what they import, each runs in a fresh module context. The
 * other integration files share their worker's loaded modules from file to file (each file still brings its own
 * database, servers and processes), which spares re-importing the services' module graphs — about half the
 * integration project's CPU.
 */
const OWN_GLOBALS = integrationFiles().filter((file) =>
  /@opentelemetry\/|@relay\/telemetry\/testing|startTelemetry/.test(readFileSync(fromRoot(file), 'utf8')),
);

/**
 * vitest's order (the slowest files of the last run first, else the largest), with the images' file last: a worker
 * that took it earlier would sit in its wait for the build while files that are ready to run queue behind it.
 */
class ImagesLast extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return [...sorted.filter((file) => file.moduleId !== IMAGES), ...sorted.filter((file) => file.moduleId === IMAGES)];
  }
}

function fromRoot(path: string): string {
  return fileURLToPath(new URL(path, import.meta.url));
}

/** The integration files (INTEGRATION's patterns), as paths from the root. */
function integrationFiles(): string[] {
  const roots = ['packages', 'services'].flatMap((area) => readdirSync(fromRoot(area)).map((name) => `${area}/${name}/test`)).concat('cli/test');
  return roots
    .filter((root) => existsSync(fromRoot(root)))
    .flatMap((root) => readdirSync(fromRoot(root), { recursive: true, encoding: 'utf8' }).map((file) => `${root}/${file}`))
    .filter((file) => file.endsWith('.int.test.ts'));
}

export default defineConfig({
  // Where vitest keeps each file's last duration and outcome (results.json), by which it runs the slowest and the
  // failed files first: in .relay/ rather than node_modules/.vite, which every `npm ci` (.ci/run) empties.
  cacheDir: '.relay/vite',
  test: {
    onUnhandledError(error) {
      mkdirSync(fileURLToPath(new URL('./.relay', import.meta.url)), { recursive: true });
      const { VITEST_TEST_PATH: testPath } = error as { VITEST_TEST_PATH?: string };
      const origin = testPath ? ` (while ${testPath} ran)` : '';
      appendFileSync(UNHANDLED_ERRORS_FILE, `${error.type}${origin}: ${error.stack ?? error.message}\n\n`);
    },
    // Two files at a time in every project, on two cores as on more: integration and end-to-end files mostly wait
    // for their servers, so two overlap.
    maxWorkers: 2,
    sequence: { sequencer: ImagesLast },
    projects: [
      // Pure code: one worker keeps the modules it loaded from file to file (nothing here mocks or patches globals).
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['{packages,services,cli}/*/{src,test}/**/*.test.ts', 'cli/test/**/*.test.ts'],
          exclude: ['**/*.int.test.ts', '**/node_modules/**'],
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: INTEGRATION,
          exclude: [...OWN_GLOBALS, '**/node_modules/**'],
          isolate: false,
          globalSetup: [BUILD_SERVICES],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: { name: 'integration (own globals)', include: OWN_GLOBALS, globalSetup: [BUILD_SERVICES], testTimeout: 60_000, hookTimeout: 60_000 },
      },
      // Checks of files (manifests, Dockerfiles, imports) that start nothing: they run beside the others.
      { extends: true, test: { name: 'static', include: STATIC, testTimeout: 120_000, hookTimeout: 120_000 } },
      { extends: true, test: { name: 'e2e-four-relays', include: FOUR_RELAYS, globalSetup: [BUILD_SERVICES], testTimeout: 120_000, hookTimeout: 300_000 } },
      // After the others; each file is a user of the shared relay or starts relays of its own (ADR 0006). Relays start
      // one at a time (test/harness/one-at-a-time.ts), so a file's beforeAll may wait for another file's relay first.
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/**/*.test.ts'],
          exclude: [...STATIC, ...FOUR_RELAYS],
          globalSetup: [BUILD_SERVICES, SHARED_RELAY],
          // Like the integration files, each file keeps what its worker loaded before (the harness, the MCP SDK, the
          // gRPC clients): nothing here mocks or patches globals, and each file brings its own relay or user.
          isolate: false,
          testTimeout: 120_000,
          hookTimeout: 300_000,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
