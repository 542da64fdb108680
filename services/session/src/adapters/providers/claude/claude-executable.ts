/**
 * Where Claude Code's executable is, as the sandbox that starts it looks for it (CliSandbox.locate): the configured
 * one, else the one the Claude Agent SDK ships for this platform as an optional package. A missing one is a reason
 * the provider is unavailable.
 */
import type { CliLocation, CliProgram } from '../../../app/tasks/cli-sandbox.ts';

type ExecutableLookup = { path: string; reason: '' } | { path: undefined; reason: string };

/** The platform package's name, e.g. @anthropic-ai/claude-agent-sdk-linux-x64. */
function platformPackage(platform: string = process.platform, arch: string = process.arch): string {
  return `@anthropic-ai/claude-agent-sdk-${platform}-${arch}`;
}

/** Claude Code's executable as the sandbox is asked for it. */
export function claudeProgram(configured: string | undefined): CliProgram {
  return configured !== undefined ? { path: configured } : { package: platformPackage(), file: process.platform === 'win32' ? 'claude.exe' : 'claude' };
}

/** The executable the sandbox found (`machine`: where it looked, "on this machine"), or why there is none. */
export function claudeExecutable(configured: string | undefined, found: CliLocation | undefined, machine: string): ExecutableLookup {
  if (found !== undefined) return { path: found.path, reason: '' };
  return configured !== undefined
    ? { path: undefined, reason: `Claude Code's executable ${configured} (RELAY_CLAUDE_EXECUTABLE) is missing or not executable ${machine}` }
    : { path: undefined, reason: `Claude Code's executable is not installed ${machine} (${platformPackage()}); install it or set RELAY_CLAUDE_EXECUTABLE` };
}
