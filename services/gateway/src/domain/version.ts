/**
 * The version this relay speaks as (decisions.md, Versions), and the check of a paired relay's version against the
 * features a call uses.
 */
import type { ActionTraits } from './action-traits.ts';
import { toolError } from './errors.ts';
import type { ToolArguments } from './tool-arguments.ts';

/** The version this relay speaks as; paired relays compare features against it. */
export const RELAY_VERSION = '0.9.19';

/** REMOTE_RELAY_UNSUPPORTED, with the spec's sentence, when the target relay's version is older than the feature the call uses. */
export function requireVersion(action: Pick<ActionTraits, 'toPaired'>, args: ToolArguments, relay: { name: string; version: string }): void {
  if (relay.version === '') return;
  for (const feature of action.toPaired?.features ?? []) {
    if ((feature.applies?.(args) ?? true) && compareVersions(relay.version, feature.since) < 0) {
      throw toolError('REMOTE_RELAY_UNSUPPORTED', feature.refusal.replaceAll('{relay}', relay.name).replaceAll('{version}', relay.version), {
        version: relay.version,
        needs: feature.since,
      });
    }
  }
}

/** Compares two semver versions by their numbers (pre-release tags are not told apart). */
export function compareVersions(a: string, b: string): number {
  const parts = (version: string) =>
    version
      .replace(/^v/, '')
      .split(/[.+-]/)
      .slice(0, 3)
      .map((part) => Number.parseInt(part, 10) || 0);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i += 1) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
}
