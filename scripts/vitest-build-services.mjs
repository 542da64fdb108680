// vitest's global setup for the projects that start services as processes (integration, e2e): rebuilds each
// service whose dist/ is missing or older than a source, so a test never runs a build of older code.
import { buildStaleServices } from './build.mjs';

export default async function setup() {
  await buildStaleServices();
}
