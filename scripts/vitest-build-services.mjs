// vitest's global setup for the projects that start services as processes (integration, e2e): rebuilds each
// service whose dist/ is missing or older than a source, so a test never runs a build of older code, and the
// CLI's, which `relay` would otherwise rebuild in each of the test files that run it at once.
import { buildIfStale, buildStaleServices, CLI_DIR } from './build.mjs';

export default async function setup() {
  await buildStaleServices();
  await buildIfStale(CLI_DIR);
}
