import { describe, expect, it } from 'vitest';
import { isAppError } from '@relay/errors';
import type { PairedRelay } from '@relay/proto/relay/pairing/v1/pairing_service';
import { agentLevelOf, pairingView } from '../src/app/views/pairing-view.ts';
import type { AgentLevelName } from '../src/domain/agent-levels.ts';
import { ACTION_NAMES, actionNamed, type ActionName } from '../src/app/relay-tool/action-list.ts';
import { checkPairedRelayCall, type PairedRelayCall } from '../src/domain/paired-relay-policy.ts';

/** A paired relay as the policy gets it: the pairing service's answer, its level read by name (pairingView). */
const relay = (level: AgentLevelName, name = 'build-box') =>
  pairingView({
    name,
    url: `https://${name}.example.com`,
    online: true,
    version: '0.9.19',
    level: agentLevelOf(level),
    ownerUserId: 'u1',
    pairedAt: undefined,
  } satisfies PairedRelay);
/** A turn's provenance; `viaRelays` left empty is what a relay that predates the chain sends. */
const provenance = (hops: number, originRelay = 'desk', viaRelays: string[] = []) => ({
  originRelay,
  originSessionId: 's',
  originSessionTitle: 'S',
  model: 'm',
  hops,
  viaRelays,
});

function codeOf({ action, ...call }: Partial<Omit<PairedRelayCall, 'action'>> & { action: ActionName }): string | undefined {
  try {
    checkPairedRelayCall({
      relay: relay('full'),
      unlocks: [{ relay: 'build-box', byMention: true }],
      turnProvenance: undefined,
      sendsPrompt: false,
      ...call,
      action: actionNamed(action),
    });
    return undefined;
  } catch (error) {
    if (!isAppError(error)) throw error;
    return error.code;
  }
}

describe('the level table (decisions.md, Agents may)', () => {
  it.each([
    ['off', []],
    [
      'read',
      ['relay_info', 'usage', 'list_sessions', 'read_session', 'read_task_output', 'wait', 'subscribe', 'unsubscribe', 'list_subscriptions', 'list_questions'],
    ],
    ['read_and_prompt', ['send', 'ask', 'withdraw']],
    ['full', ['create_session', 'update_session', 'answer_question', 'stop', 'archive', 'transfer_subscriptions']],
  ] as const)('at %s, agents gain exactly these actions', (level, gained) => {
    const allowedAt = (l: AgentLevelName) => ACTION_NAMES.filter((action) => codeOf({ action, relay: relay(l) }) === undefined && action !== 'list_relays');
    const below: Record<AgentLevelName, AgentLevelName | undefined> = { off: undefined, read: 'off', read_and_prompt: 'read', full: 'read_and_prompt' };
    const before = below[level] ? allowedAt(below[level]) : [];
    expect(
      allowedAt(level)
        .filter((action) => !before.includes(action))
        .sort(),
    ).toEqual([...gained].sort());
  });

  it('refuses below the level with REMOTE_RELAY_PERMISSION, and the schedule actions at every level with REMOTE_RELAY_UNSUPPORTED', () => {
    expect(codeOf({ action: 'send', relay: relay('read') })).toBe('REMOTE_RELAY_PERMISSION');
    for (const action of ['schedule', 'list_schedules', 'unschedule'] as const) {
      expect(actionNamed(action).toPaired).toBeUndefined();
      expect(codeOf({ action, relay: relay('full') })).toBe('REMOTE_RELAY_UNSUPPORTED');
    }
  });
});

describe('the lock', () => {
  it('refuses every action but list_relays until the relay is unlocked, before the level is looked at', () => {
    expect(codeOf({ action: 'read_session', unlocks: [] })).toBe('REMOTE_RELAY_LOCKED');
    expect(codeOf({ action: 'send', relay: relay('off'), unlocks: [] })).toBe('REMOTE_RELAY_LOCKED');
    expect(codeOf({ action: 'read_session', unlocks: [{ relay: 'Build-Box', byMention: false }] })).toBeUndefined();
  });
});

describe('the hop limit', () => {
  const unlockedByAgent = [{ relay: 'build-box', byMention: false }];
  it('lets a prompt from a turn below 2 hops go anywhere unlocked', () => {
    expect(codeOf({ action: 'send', unlocks: unlockedByAgent, turnProvenance: provenance(1), sendsPrompt: true })).toBeUndefined();
  });
  it('keeps a prompt at 2 hops or more from a third relay the user did not mention', () => {
    expect(codeOf({ action: 'send', unlocks: unlockedByAgent, turnProvenance: provenance(2), sendsPrompt: true })).toBe('REMOTE_RELAY_HOP_LIMIT');
    expect(codeOf({ action: 'create_session', unlocks: unlockedByAgent, turnProvenance: provenance(3), sendsPrompt: true })).toBe('REMOTE_RELAY_HOP_LIMIT');
  });
  it('lets it go back to the relay it came from, or to one the user mentioned', () => {
    expect(codeOf({ action: 'send', unlocks: unlockedByAgent, turnProvenance: provenance(2, 'build-box'), sendsPrompt: true })).toBeUndefined();
    expect(codeOf({ action: 'send', unlocks: [{ relay: 'build-box', byMention: true }], turnProvenance: provenance(2), sendsPrompt: true })).toBeUndefined();
  });
  it('lets it go back to every relay the chain came through, case-insensitively (user at A, A → B → C: C may prompt A or B)', () => {
    const atC = provenance(2, 'B', ['A', 'B']);
    const unlocked = (name: string) => [{ relay: name, byMention: false }];
    expect(codeOf({ action: 'send', relay: relay('full', 'a'), unlocks: unlocked('a'), turnProvenance: atC, sendsPrompt: true })).toBeUndefined();
    expect(codeOf({ action: 'create_session', relay: relay('full', 'B'), unlocks: unlocked('B'), turnProvenance: atC, sendsPrompt: true })).toBeUndefined();
  });
  it('refuses a fourth relay the chain did not come through, unless the user mentioned it; the refusal names the chain', () => {
    const atC = provenance(2, 'B', ['A', 'B']);
    const call = { action: 'send' as const, relay: relay('full', 'D'), turnProvenance: atC, sendsPrompt: true };
    let refusal: unknown;
    try {
      checkPairedRelayCall({ ...call, action: actionNamed(call.action), unlocks: [{ relay: 'D', byMention: false }] });
    } catch (error) {
      refusal = error;
    }
    expect(isAppError(refusal) && refusal.code).toBe('REMOTE_RELAY_HOP_LIMIT');
    expect(isAppError(refusal) && refusal.message).toContain('came through "A", "B"');
    expect(isAppError(refusal) && refusal.message).toContain('@D');
    expect(codeOf({ ...call, unlocks: [{ relay: 'D', byMention: true }] })).toBeUndefined();
  });
  it('reads a provenance without the chain (from a relay that predates it) as coming through its origin relay only, as before', () => {
    const old = provenance(2, 'B');
    expect(
      codeOf({ action: 'send', relay: relay('full', 'B'), unlocks: [{ relay: 'B', byMention: false }], turnProvenance: old, sendsPrompt: true }),
    ).toBeUndefined();
    expect(codeOf({ action: 'send', relay: relay('full', 'A'), unlocks: [{ relay: 'A', byMention: false }], turnProvenance: old, sendsPrompt: true })).toBe(
      'REMOTE_RELAY_HOP_LIMIT',
    );
  });
  it('never limits reading and waiting', () => {
    expect(actionNamed('wait').toPaired?.sendsPrompt).toBeFalsy();
    expect(codeOf({ action: 'wait', unlocks: unlockedByAgent, turnProvenance: provenance(5), sendsPrompt: false })).toBeUndefined();
    expect(actionNamed('send').toPaired?.sendsPrompt).toBe(true);
    expect(actionNamed('create_session').toPaired?.sendsPrompt).toBe(true);
  });
});
