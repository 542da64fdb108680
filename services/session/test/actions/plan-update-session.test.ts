import { describe, expect, it } from 'vitest';
import { planUpdateSession, resolveWindow, type UpdateSessionContext, type UpdateSessionInput } from '../../src/domain/sessions/plan-update-session.ts';
import { aGroup, allProviders, aSession, provider, refusalOf } from './fixtures.ts';

const providers = await allProviders();
const caller = aSession({ id: 'caller' });
const mine = aSession({ id: 'target', provider: 'claude', model: 'claude-opus-5-5', startedBySessionId: 'caller' });

function input(overrides: Partial<UpdateSessionInput> = {}): UpdateSessionInput {
  return { userId: 'u1', callerSessionId: 'caller', sessionId: 'target', allowed: false, dryRun: false, ...overrides };
}

function context(overrides: Partial<UpdateSessionContext> = {}): UpdateSessionContext {
  return {
    target: mine,
    caller,
    providers,
    groups: [],
    targetAtWork: false,
    hasGrant: false,
    remoteStarter: null,
    relayName: 'build-box',
    allowedRoots: ['/home/dev', '/tmp'],
    ...overrides,
  };
}

describe('planUpdateSession', () => {
  it('lists what changes, in the order of the settings', () => {
    const plan = planUpdateSession(input({ title: 'Renamed', effort: 'low', model: 'claude-sonnet-5-5' }), context());
    expect(plan.changed).toEqual(['model', 'effort', 'title']);
    expect(plan.changes).toEqual({ model: 'claude-sonnet-5-5', effort: 'low', title: 'Renamed' });
    expect(plan.needsAllow).toBe(false);
  });

  it('answers changed [] and asks nobody when nothing would change', () => {
    const others = { ...mine, startedBySessionId: null };
    const plan = planUpdateSession(input({ model: 'claude-opus-5-5', mode: 'agent' }), context({ target: others }));
    expect(plan.changed).toEqual([]);
    expect(plan.needsAllow).toBe(false);
  });

  it("needs the user's Allow for a session the conversation did not start, unless granted or allowed", () => {
    const others = { ...mine, startedBySessionId: null };
    expect(planUpdateSession(input({ title: 'x' }), context({ target: others })).needsAllow).toBe(true);
    expect(planUpdateSession(input({ title: 'x' }), context({ target: others, hasGrant: true })).needsAllow).toBe(false);
    const allowed = planUpdateSession(input({ title: 'x', allowed: true }), context({ target: others }));
    expect(allowed).toMatchObject({ needsAllow: false, recordGrant: true });
  });

  it('lets the user change any of their sessions without asking', () => {
    const others = { ...mine, startedBySessionId: null };
    expect(planUpdateSession(input({ callerSessionId: '', title: 'x' }), context({ target: others, caller: undefined })).needsAllow).toBe(false);
  });

  it.each<[string, Partial<UpdateSessionInput>, Partial<UpdateSessionContext>, string]>([
    ['no setting', {}, {}, 'REMOTE_RELAY_INVALID_INPUT'],
    ['an unknown session', { title: 'x' }, { target: undefined }, 'REMOTE_RELAY_NOT_FOUND'],
    ["the caller's own conversation", { sessionId: 'caller', title: 'x' }, { target: caller }, 'REMOTE_RELAY_FORBIDDEN'],
    ['an archived session', { title: 'x' }, { target: { ...mine, archived: true } }, 'REMOTE_RELAY_ARCHIVED'],
    ['an unknown model', { model: 'claude-opus-5.5' }, {}, 'REMOTE_RELAY_UNKNOWN_MODEL'],
    ['an unknown effort', { effort: 'max' }, {}, 'REMOTE_RELAY_INVALID_INPUT'],
    ['a bad mode', { mode: 'auto' }, {}, 'REMOTE_RELAY_INVALID_INPUT'],
    ['a bad window', { autoCompactWindow: 'big' }, {}, 'REMOTE_RELAY_INVALID_INPUT'],
    ['a bad thinking display', { thinkingDisplay: 'loud' }, {}, 'REMOTE_RELAY_INVALID_INPUT'],
    ['an empty title', { title: ' ' }, {}, 'REMOTE_RELAY_INVALID_INPUT'],
    ['an unknown group id', { group: 'grp_gone' }, {}, 'REMOTE_RELAY_UNKNOWN_GROUP'],
    ['a folder outside the roots', { cwd: '/etc' }, {}, 'REMOTE_RELAY_INVALID_INPUT'],
    ['a new folder while a turn is queued or running', { cwd: '/tmp/x' }, { targetAtWork: 'turn' }, 'REMOTE_RELAY_BUSY'],
    ['a new folder while a background task runs', { cwd: '/tmp/x' }, { targetAtWork: 'task' }, 'REMOTE_RELAY_BUSY'],
    ['a folder for Claude Cloud', { cwd: '/tmp/x' }, { target: { ...mine, provider: 'claude-cloud', cwd: '' } }, 'REMOTE_RELAY_INVALID_INPUT'],
    ["an external session's model", { model: 'x' }, { target: { ...mine, provider: 'external' } }, 'REMOTE_RELAY_UNSUPPORTED'],
  ])('refuses %s', (_, overrides, contextOverrides, code) => {
    expect(refusalOf(() => planUpdateSession(input(overrides), context(contextOverrides))).code).toBe(code);
  });

  it('says why a folder change is refused while busy', () => {
    expect(refusalOf(() => planUpdateSession(input({ cwd: '/tmp/x' }), context({ targetAtWork: 'turn' }))).message).toMatch(
      /^The session cannot move to another folder now: a turn is queued or running there\. /,
    );
    expect(refusalOf(() => planUpdateSession(input({ cwd: '/tmp/x' }), context({ targetAtWork: 'task' }))).message).toMatch(
      /^The session cannot move to another folder now: a background task it started still runs there\. /,
    );
  });

  it('checks the model before asking whether the user must allow', () => {
    const others = { ...mine, startedBySessionId: null };
    expect(refusalOf(() => planUpdateSession(input({ model: 'nope' }), context({ target: others }))).code).toBe('REMOTE_RELAY_UNKNOWN_MODEL');
  });
});

describe('planUpdateSession: groups', () => {
  const release = aGroup({ id: 'grp_rel', name: 'Release 2.4' });

  it('joins an existing group by name, makes a new one for an unknown name, leaves with ""', () => {
    expect(planUpdateSession(input({ group: 'release 2.4' }), context({ groups: [release] })).groupMove).toEqual({ kind: 'join', group: release });
    expect(planUpdateSession(input({ group: 'Hotfix' }), context({ groups: [release] })).groupMove).toEqual({ kind: 'create', name: 'Hotfix' });
    const inGroup = { ...mine, groupId: 'grp_rel', groupRole: 'member' as const };
    const leave = planUpdateSession(input({ group: '' }), context({ target: inGroup, groups: [release] }));
    expect(leave.groupMove).toEqual({ kind: 'leave' });
    expect(leave.changed).toEqual(['group']);
  });

  it('changes nothing when the session is already in that group, or in none and asked to leave', () => {
    const inGroup = { ...mine, groupId: 'grp_rel', groupRole: 'member' as const };
    expect(planUpdateSession(input({ group: 'grp_rel' }), context({ target: inGroup, groups: [release] })).changed).toEqual([]);
    expect(planUpdateSession(input({ group: '' }), context()).changed).toEqual([]);
  });
});

describe('planUpdateSession: the folder', () => {
  it('does not relaunch a session whose worker has not started, and says it keeps the folder for its first start', () => {
    const plan = planUpdateSession(input({ cwd: '/tmp/x' }), context());
    expect(plan).toMatchObject({ relaunched: false, changes: { cwd: '/tmp/x' } });
    expect(plan.notes.join(' ')).toContain('first start');
  });

  it('relaunches a running Claude worker', () => {
    expect(planUpdateSession(input({ cwd: '/tmp/x' }), context({ target: { ...mine, workerStarted: true } })).relaunched).toBe(true);
  });

  it('never restarts a script worker: the folder is saved for its next start', () => {
    const script = { ...mine, provider: 'script', model: 'script-1', workerStarted: true };
    const plan = planUpdateSession(input({ cwd: '/tmp/x' }), context({ target: script }));
    expect(plan.relaunched).toBe(false);
    expect(plan.notes.join(' ')).toContain('saved for its next start');
  });

  it('leaves relaunched unset when the folder stays', () => {
    expect(planUpdateSession(input({ cwd: '/home/dev/shop/' }), context()).relaunched).toBeUndefined();
  });
});

describe('planUpdateSession: window and thinking', () => {
  it('takes a window as the nearest one and says so', () => {
    const plan = planUpdateSession(input({ autoCompactWindow: '150000' }), context());
    expect(plan.changes.autoCompactWindow).toBe('100000');
    expect(plan.notes.join(' ')).toContain('was taken as 100,000, the nearest window Claude offers');
  });

  it('changes nothing on a script session and says the settings are for Claude sessions only', () => {
    const script = { ...mine, provider: 'script', model: 'script-1' };
    const plan = planUpdateSession(input({ autoCompactWindow: '200000', thinkingEnabled: false }), context({ target: script }));
    expect(plan.changed).toEqual([]);
    expect(plan.notes).toEqual([
      'auto_compact_window and the thinking settings apply to Claude sessions only (Claude API included) and change nothing on a Script session.',
    ]);
  });

  it('applies the window on DeepSeek (0 = 400,000) but not thinking, and says so', () => {
    const deepseek = { ...mine, provider: 'deepseek', model: 'deepseek-chat' };
    const plan = planUpdateSession(input({ autoCompactWindow: '0', thinkingEnabled: false }), context({ target: deepseek }));
    expect(plan.changes).toEqual({ autoCompactWindow: '400000' });
    expect(plan.changed).toEqual(['auto_compact_window']);
    expect(plan.notes.join(' ')).toContain('0 means 400,000 tokens');
    expect(plan.notes.join(' ')).toContain('always thinks');
  });

  it('applies window and thinking on a Claude API session too, with no note', () => {
    const onKey = { ...mine, provider: 'claude-api' };
    const plan = planUpdateSession(input({ autoCompactWindow: '400000', thinkingEnabled: false }), context({ target: onKey }));
    expect(plan.changes).toEqual({ autoCompactWindow: '400000', thinkingEnabled: false });
    expect(plan.notes).toEqual([]);
  });

  it('changes nothing on an OpenAI-compatible session and says so once', () => {
    const openai = { ...mine, provider: 'openai', model: 'gpt-x' };
    const plan = planUpdateSession(input({ autoCompactWindow: '200000', thinkingEnabled: false, thinkingDisplay: 'hidden' }), context({ target: openai }));
    expect(plan.changed).toEqual([]);
    expect(plan.notes).toEqual([
      'auto_compact_window and the thinking settings apply to Claude sessions only (Claude API included) and change nothing on an OpenAI-compatible session.',
    ]);
  });

  it('takes the nearest window DeepSeek offers, and thinking alone changes nothing there', () => {
    const deepseek = { ...mine, provider: 'deepseek', model: 'deepseek-chat' };
    const window = planUpdateSession(input({ autoCompactWindow: '300001' }), context({ target: deepseek }));
    expect(window.changes).toEqual({ autoCompactWindow: '400000' });
    expect(window.notes.join(' ')).toContain('was taken as 400,000, the nearest window DeepSeek offers');
    const thinking = planUpdateSession(input({ thinkingEnabled: false }), context({ target: deepseek }));
    expect(thinking.changed).toEqual([]);
    expect(thinking.notes).toEqual(['A DeepSeek session always thinks: thinking_enabled and thinking_display change nothing there.']);
  });

  it('sets thinking on Claude', () => {
    const plan = planUpdateSession(input({ thinkingEnabled: false, thinkingDisplay: 'hidden' }), context());
    expect(plan.changes).toEqual({ thinkingEnabled: false, thinkingDisplay: 'hidden' });
    expect(plan.changed).toEqual(['thinking_enabled', 'thinking_display']);
  });

  it.each([
    ['auto', 'auto'],
    ['200k', '200000'],
    ['1,000,000', '1000000'],
    ['999999999', '1000000'],
  ])('reads window %j as %j on Claude', (value, expected) => {
    expect(resolveWindow(value, provider(providers, 'claude')).value).toBe(expected);
  });
});

describe("a paired relay's agent (remoteCaller)", () => {
  const remoteInput = (overrides: Partial<UpdateSessionInput> = {}) =>
    input({ callerSessionId: '', remoteCaller: { relay: 'desk', sessionId: 'd1' }, model: 'claude-sonnet-5-5', ...overrides });
  const remoteContext = (remoteStarter: UpdateSessionContext['remoteStarter']) =>
    context({ caller: undefined, target: aSession({ id: 'target', provider: 'claude', model: 'claude-opus-5-5' }), remoteStarter });

  it('changes freely a session that relay recorded its conversation as the starter of', () => {
    expect(planUpdateSession(remoteInput(), remoteContext({ relay: 'desk', sessionId: 'd1' })).needsAllow).toBe(false);
  });

  it("needs the user's Allow for any other session: another conversation there, another relay, or a user's own", () => {
    expect(planUpdateSession(remoteInput(), remoteContext({ relay: 'desk', sessionId: 'd2' })).needsAllow).toBe(true);
    expect(planUpdateSession(remoteInput(), remoteContext({ relay: 'lab', sessionId: 'd1' })).needsAllow).toBe(true);
    expect(planUpdateSession(remoteInput(), remoteContext(null)).needsAllow).toBe(true);
    expect(planUpdateSession(remoteInput({ allowed: true }), remoteContext(null)).needsAllow).toBe(false);
  });
});
