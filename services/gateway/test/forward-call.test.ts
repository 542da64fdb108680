import { describe, expect, it } from 'vitest';
import { isAppError } from '@relay/errors';
import { compareVersions, requireVersion } from '../src/domain/version.ts';
import { actionNamed, type ActionName } from '../src/app/relay-tool/action-list.ts';
import type { ToolArguments } from '../src/domain/tool-arguments.ts';
import { AgentLevel } from '@relay/proto/relay/pairing/v1/pairing_service';

const relayAt = (version: string) => ({
  name: 'build-box',
  url: 'https://build-box.example.com',
  online: true,
  version,
  level: AgentLevel.AGENT_LEVEL_FULL,
  ownerUserId: 'u1',
  pairedAt: undefined,
});

function refusal(action: ActionName, args: ToolArguments, version: string): { code: string; message: string } | undefined {
  try {
    requireVersion(actionNamed(action), args, relayAt(version));
    return undefined;
  } catch (error) {
    if (!isAppError(error)) throw error;
    return { code: error.code, message: error.message };
  }
}

describe('versions (decisions.md, Versions)', () => {
  it('compares by numbers', () => {
    expect(compareVersions('0.9.9', '0.9.16')).toBeLessThan(0);
    expect(compareVersions('0.9.16', '0.9.16')).toBe(0);
    expect(compareVersions('v1.0.0', '0.9.19')).toBeGreaterThan(0);
  });

  it.each([
    ['create_session', { group: 'Release 2.4' }, '0.9.15', "The target relay doesn't support groups on create_session yet"],
    ['update_session', { session: 's', model: 'm' }, '0.9.15', 'has no update_session'],
    ['read_task_output', { session: 's', task_id: 't' }, '0.9.11', 'has no read_task_output'],
    ['send', { session: 's', text: 't', provider: 'claude' }, '0.9.17', "cannot switch a session's billing"],
  ] as const)('refuses %s on a relay too old for it with REMOTE_RELAY_UNSUPPORTED', (action, args, version, sentence) => {
    const refused = refusal(action, args, version);
    expect(refused?.code).toBe('REMOTE_RELAY_UNSUPPORTED');
    expect(refused?.message).toContain(sentence);
  });

  it('lets the same calls through on a relay new enough, or whose version is not known', () => {
    expect(refusal('create_session', { group: 'Release 2.4' }, '0.9.16')).toBeUndefined();
    expect(refusal('send', { session: 's', text: 't', provider: 'claude' }, '0.9.18')).toBeUndefined();
    expect(refusal('create_session', { text: 'no group' }, '0.9.10')).toBeUndefined();
    expect(refusal('update_session', { session: 's', model: 'm' }, '')).toBeUndefined();
  });
});
