// `npm run up`: make the checkout runnable (npm ci, generated code), then run `relay up`.
// Plain Node, no dependencies: it runs before node_modules exists.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchUp } from '../cli/bin/launch-cli.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** npm writes node_modules/.package-lock.json on every install, so it is older than the lock file only when stale. */
function needsInstall() {
  const installed = join(root, 'node_modules', '.package-lock.json');
  if (!existsSync(installed)) return true;
  return statSync(installed).mtimeMs < statSync(join(root, 'package-lock.json')).mtimeMs;
}

/** Services whose generated code (Prisma client) is missing. */
function servicesMissingGeneratedCode() {
  const servicesDir = join(root, 'services');
  return readdirSync(servicesDir).filter((name) => {
    const manifest = join(servicesDir, name, 'package.json');
    if (!existsSync(manifest)) return false;
    const scripts = JSON.parse(readFileSync(manifest, 'utf8')).scripts ?? {};
    return typeof scripts.generate === 'string' && !existsSync(join(servicesDir, name, 'src', 'generated'));
  });
}

function run(args, env = process.env) {
  process.stdout.write(`> npm ${args.join(' ')}\n`);
  const result = spawnSync(npm, args, { cwd: root, stdio: 'inherit', env });
  if (result.status !== 0) {
    process.stderr.write(`relay: npm ${args.join(' ')} failed (${result.error?.message ?? `exit code ${result.status ?? result.signal}`})\n`);
    process.exit(1);
  }
}

/** The first `name` on PATH (or in /usr/bin), if any. */
function onPath(name) {
  const dirs = [...(process.env.PATH ?? '').split(':').filter((dir) => dir !== ''), '/usr/bin'];
  return dirs.map((dir) => join(dir, name)).find((candidate) => existsSync(candidate));
}

/**
 * Every command an agent runs goes into a bubblewrap sandbox (docs/security.md): installed from Debian's apt when
 * missing, as nats-server is; where it cannot be, the relay still starts and refuses every command, and says so.
 */
function ensureBubblewrap() {
  if (process.platform !== 'linux' || onPath('bwrap') !== undefined) return;
  const aptGet = onPath('apt-get');
  if (aptGet !== undefined && process.getuid?.() === 0) {
    process.stdout.write("bubblewrap is not installed: installing Debian's bubblewrap with apt-get\n");
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const install = () => spawnSync(aptGet, ['install', '-y', '-qq', 'bubblewrap'], { stdio: 'inherit', env }).status === 0;
    if (!install()) {
      spawnSync(aptGet, ['update', '-qq'], { stdio: 'inherit', env });
      install();
    }
  }
  if (onPath('bwrap') === undefined) {
    process.stderr.write(
      'relay: bubblewrap (bwrap) is not installed, so no command an agent asks for will run (install it: sudo apt-get install bubblewrap)\n',
    );
  }
}

// Errors only: @nats-io/nuid 3.0.0, @prisma/streams-local and cookie 2 declare Node 22 yet run on the 20.19 that
// engines allows, and a newcomer should not have to read those warnings twice (README, Node.js). Errors still show.
if (needsInstall()) run(['ci', '--loglevel=error']);
const missing = servicesMissingGeneratedCode();
if (missing.length > 0) {
  process.stdout.write(`Generating code for ${missing.join(', ')}\n`);
  run(['run', 'generate'], { ...process.env, TURBO_TELEMETRY_DISABLED: '1', DO_NOT_TRACK: '1' });
}
ensureBubblewrap();
await launchUp(process.argv.slice(2));
