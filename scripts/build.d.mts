// Types of scripts/build.mjs for the TypeScript that imports it (`relay up`).

/** Every service folder (a workspace under services/ with a src/main.ts). */
export function serviceDirs(): string[];
/** A service's dist is stale when it is missing, or when any file that went into it changed or is gone since. */
export function isStale(serviceDir: string): boolean;
/** Bundles one service, or a workspace's commands alone (src/bin/*.ts), into its dist/. */
export function buildService(serviceDir: string): Promise<void>;
/** Builds every service whose dist is stale, telling `onBuild` each one's name first; returns their names. */
export function buildStaleServices(onBuild?: (name: string) => void): Promise<string[]>;
