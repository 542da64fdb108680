/**
 * Where Claude Code's executable is: the configured one, else the one the Claude Agent SDK ships for
 * this platform as an optional package. A missing one is a reason the provider is unavailable.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { isExecutable } from '../is-executable.ts';

export type ExecutableLookup = { path: string; reason: '' } | { path: undefined; reason: string };

/** The platform package's name, e.g. @anthropic-ai/claude-agent-sdk-linux-x64. */
export function platformPackage(platform: string = process.platform, arch: string = process.arch): string {
  return `@anthropic-ai/claude-agent-sdk-${platform}-${arch}`;
}

export function findClaudeExecutable(configured: string | undefined): ExecutableLookup {
  if (configured !== undefined) {
    return isExecutable(configured)
      ? { path: configured, reason: '' }
      : { path: undefined, reason: `Claude Code's executable ${configured} (RELAY_CLAUDE_EXECUTABLE) is missing or not executable` };
  }
  const name = platformPackage();
  try {
    const manifest = createRequire(import.meta.url).resolve(`${name}/package.json`);
    const binary = join(dirname(manifest), process.platform === 'win32' ? 'claude.exe' : 'claude');
    if (isExecutable(binary)) return { path: binary, reason: '' };
  } catch {
    // Not installed: npm skips an optional package for another platform.
  }
  return { path: undefined, reason: `Claude Code's executable is not installed for this platform (${name}); install it or set RELAY_CLAUDE_EXECUTABLE` };
}
