/**
 * A service run from its image (scripts/build-images.sh) instead of its dist/: a buildah working container of the
 * image, its command run in it with the host's network, as a pod runs the image. buildah's chroot isolation needs no
 * container runtime, so this works where the images were built (as root, like CI).
 */
import { spawnSync } from 'node:child_process';

/** The command every service image runs (docker/service/Dockerfile's CMD). */
const SERVICE_COMMAND = ['node', '--enable-source-maps', '--import', './dist/register.js', 'dist/main.js'];

export interface ImageLaunch {
  command: string;
  args: string[];
  /** Removes the working container (after its process has exited). */
  remove(): void;
}

function buildah(args: string[]): string {
  const result = spawnSync('buildah', args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`buildah ${args.join(' ')} failed: ${result.stderr || result.error?.message}`);
  return result.stdout.trim();
}

export interface LaunchOptions {
  /** Host folders shared at the same path inside (the relay clock's, say). */
  shared?: string[];
  /** What to run instead of the image's service command (the migration image's relay-migrate, say). */
  command?: string[];
  /** The user to run as instead of the image's (uid:gid), as a pod's securityContext may say. */
  user?: string;
}

/** How to run `image` with `env`. */
export function launchImage(image: string, env: Record<string, string>, options: LaunchOptions = {}): ImageLaunch {
  const { shared = [], command = SERVICE_COMMAND, user } = options;
  const container = buildah(['from', '--pull=never', '--quiet', image]);
  const args = [
    'run',
    '--isolation',
    'chroot',
    '--network',
    'host',
    ...(user === undefined ? [] : ['--user', user]),
    ...shared.flatMap((folder) => ['--volume', `${folder}:${folder}`]),
    ...Object.entries(env).flatMap(([name, value]) => ['--env', `${name}=${value}`]),
    container,
    '--',
    ...command,
  ];
  return { command: 'buildah', args, remove: () => void spawnSync('buildah', ['rm', container]) };
}

const UNITS: Record<string, number> = { B: 1, kB: 1e3, MB: 1e6, GB: 1e9 };

/** An image's size in megabytes (10^6 bytes), as buildah reports it ("294 MB"). */
export function imageMegabytes(image: string): number {
  const [figure, unit] = buildah(['images', '--noheading', '--format', '{{.Size}}', image]).split('\n')[0]!.split(' ');
  const bytes = Number(figure) * (UNITS[unit ?? ''] ?? Number.NaN);
  if (!Number.isFinite(bytes)) throw new Error(`buildah gave no size for ${image}`);
  return bytes / 1e6;
}
