import { isAppError } from '@relay/errors';
import { describe, expect, it } from 'vitest';
import { AgentLevel, type PairedRelay } from '@relay/proto/relay/pairing/v1/pairing_service';
import { namesThisRelay, resolveRelay } from '../src/domain/relay-name.ts';

const buildBox: PairedRelay = {
  name: 'build-box',
  url: 'https://ci.example.com:8443',
  online: true,
  version: '0.9.19',
  level: AgentLevel.AGENT_LEVEL_FULL,
  ownerUserId: 'u1',
  pairedAt: undefined,
};

describe('resolveRelay', () => {
  it.each([undefined, 'this', 'THIS', 'desk', 'Desk', ' desk ', '@desk'])('takes %j as this relay', (name) => {
    expect(resolveRelay(name, 'desk', [buildBox])).toEqual({ kind: 'this', name: 'desk' });
  });

  it.each(['build-box', 'Build-Box', 'ci.example.com', '@build-box'])('finds the paired relay by name or host: %j', (name) => {
    expect(resolveRelay(name, 'desk', [buildBox])).toEqual({ kind: 'paired', relay: buildBox });
  });

  it('refuses any other name with REMOTE_RELAY_UNKNOWN_RELAY, listing the names it knows', () => {
    try {
      resolveRelay('laptop', 'desk', [buildBox]);
      expect.unreachable();
    } catch (error) {
      expect(isAppError(error) && error.code).toBe('REMOTE_RELAY_UNKNOWN_RELAY');
      expect((error as Error).message).toContain('build-box');
      expect((error as Error).message).toContain('desk');
    }
  });
});

describe('namesThisRelay', () => {
  it.each([undefined, 'this', ' THIS ', 'desk', '@Desk'])('takes %j as this relay', (name) => {
    expect(namesThisRelay(name, 'desk')).toBe(true);
  });

  it.each(['build-box', '', 42, null])('takes %j as another relay or a value to check', (name) => {
    expect(namesThisRelay(name, 'desk')).toBe(false);
  });
});
