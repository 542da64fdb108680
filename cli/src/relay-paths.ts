import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where `relay up` keeps its state: `.relay/` at the repository root (git-ignored). */
export type RelayPaths = {
  repoRoot: string;
  dataDir: string;
  lockFile: string;
  credentialsFile: string;
  postgresDir: string;
  postgresPasswordFile: string;
  natsStoreDir: string;
  /** The relay's nats-server config: its users and their permissions, made fresh at each start (mode 0600). */
  natsConfigFile: string;
};

/**
 * The paths under `repoRoot`, by default the repository this CLI lives in; the state in `dataDir` (RELAY_DATA_DIR),
 * by default `.relay/` there.
 */
export function relayPaths(repoRoot = fileURLToPath(new URL('../..', import.meta.url)), dataDir = join(repoRoot, '.relay')): RelayPaths {
  return {
    repoRoot,
    dataDir,
    lockFile: join(dataDir, 'up.lock'),
    credentialsFile: join(dataDir, 'credentials.json'),
    postgresDir: join(dataDir, 'pg'),
    postgresPasswordFile: join(dataDir, 'pg-password'),
    natsStoreDir: join(dataDir, 'nats'),
    natsConfigFile: join(dataDir, 'nats.conf'),
  };
}

/** A service's folder, the cwd its process runs in. */
export function serviceDir(paths: RelayPaths, service: string): string {
  return join(paths.repoRoot, 'services', service);
}
