// Run by the root package's postinstall (so `npm ci`, `.ci/run` and `npm run up` have console/dist): builds the
// web console with Vite. Where Vite is not installed (an install without dev dependencies) it says so and skips:
// the gateway then answers `/` with a page saying how to build it.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const consoleDir = fileURLToPath(new URL('..', import.meta.url));
try {
  createRequire(import.meta.url).resolve('vite/package.json');
} catch {
  process.stdout.write('console: vite is not installed; the web console is not built (npm run build --workspace @relay/console builds it)\n');
  process.exit(0);
}
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const built = spawnSync(npm, ['run', 'build', '--silent'], { cwd: consoleDir, stdio: 'inherit' });
process.exit(built.status ?? 1);
