import { describe, expect, it } from 'vitest';
import { planCreateSession, type CreateSessionContext, type CreateSessionInput } from '../../src/domain/sessions/plan-create-session.ts';
import { titleFromText } from '../../src/domain/sessions/session-settings.ts';
import { aGroup, allProviders, aSession, RELAY, refusalOf } from './fixtures.ts';

const providers = await allProviders(['claude-api']);

function input(overrides: Partial<CreateSessionInput> = {}): CreateSessionInput {
  return {
    userId: 'u1',
    callerSessionId: 'caller',
    title: '',
    provider: '',
    model: '',
    effort: '',
    mode: '',
    cwd: '',
    repo: '',
    branch: '',
    group: '',
    text: 'Review the code under server/.',
    provenance: null,
    dryRun: false,
    ...overrides,
  };
}

const caller = aSession({ id: 'caller', title: 'Lead', provider: 'claude', model: 'claude-sonnet-5-5', effort: 'high', mode: 'ask', cwd: '/home/dev/shop' });

function context(overrides: Partial<CreateSessionContext> = {}): CreateSessionContext {
  return { caller, providers, groups: [], atWork: 0, startedCount: 0, relay: RELAY, ...overrides };
}

describe('planCreateSession: what is left out follows the calling session', () => {
  it("takes the caller's provider, model, effort, mode and folder", () => {
    const plan = planCreateSession(input(), context());
    expect(plan).toMatchObject({ model: 'claude-sonnet-5-5', effort: 'high', mode: 'ask', cwd: '/home/dev/shop', repo: '', branch: '' });
    expect(plan.provider.id).toBe('claude');
  });

  it("takes the provider's default model (and drops the effort it does not offer) on another provider", () => {
    const plan = planCreateSession(input({ provider: 'script' }), context());
    expect(plan).toMatchObject({ model: 'script-1', effort: '', mode: 'ask' });
  });

  it('starts a user on script in the default folder, with no group', () => {
    const plan = planCreateSession(input({ callerSessionId: '' }), context({ caller: undefined }));
    expect(plan).toMatchObject({ model: 'script-1', mode: 'agent', cwd: '/home/dev', placement: { kind: 'none' }, firstStartedByCaller: false });
    expect(plan.provider.id).toBe('script');
  });

  it("falls back to script when the caller's provider is not available here (an external session)", () => {
    const external = aSession({ id: 'caller', provider: 'external', model: '', cwd: '' });
    const plan = planCreateSession(input(), context({ caller: external }));
    expect(plan.provider.id).toBe('script');
    expect(plan.cwd).toBe('/home/dev');
  });

  it("does not follow a caller's folder the relay no longer allows", () => {
    const plan = planCreateSession(input(), context({ caller: { ...caller, cwd: '/srv/old' } }));
    expect(plan.cwd).toBe('/home/dev');
  });

  it('titles the session with the first line of the prompt, cut to 60 characters', () => {
    expect(planCreateSession(input({ text: '\n  Fix the banner  \nmore' }), context()).title).toBe('Fix the banner');
    const long = titleFromText('x'.repeat(80));
    expect([...long]).toHaveLength(60);
    expect(long.endsWith('…')).toBe(true);
  });
});

describe('planCreateSession: groups', () => {
  it("joins the caller's group as a member", () => {
    const group = aGroup({ id: 'grp_lead', name: 'Release' });
    const plan = planCreateSession(input(), context({ caller: { ...caller, groupId: 'grp_lead', groupRole: 'head' }, groups: [group] }));
    expect(plan.placement).toEqual({ kind: 'join', group });
  });

  it('starts a group headed by the caller when it is in none', () => {
    expect(planCreateSession(input(), context()).placement).toEqual({ kind: 'start' });
  });

  it('goes into the group named, by name in any case', () => {
    const group = aGroup({ id: 'grp_rel', name: 'Release 2.4' });
    expect(planCreateSession(input({ group: 'RELEASE 2.4' }), context({ groups: [group] })).placement).toEqual({ kind: 'join', group });
  });

  it('refuses an unknown group before anything', () => {
    const error = refusalOf(() => planCreateSession(input({ group: 'Relase' }), context({ groups: [aGroup({ id: 'grp_rel', name: 'Release 2.4' })] })));
    expect(error.code).toBe('REMOTE_RELAY_UNKNOWN_GROUP');
    expect(error.message).toBe('Relay "build-box" has no session group "Relase". Groups there: Release 2.4 (grp_rel). No session was created.');
  });
});

describe('planCreateSession: refusals', () => {
  it.each<[string, Partial<CreateSessionInput>, Partial<CreateSessionContext>, string]>([
    ['no text', { text: '  ' }, {}, 'REMOTE_RELAY_INVALID_INPUT'],
    ['an unknown provider', { provider: 'gemini' }, {}, 'REMOTE_RELAY_INVALID_INPUT'],
    ['an OpenAI Image chat', { provider: 'openai-image' }, {}, 'REMOTE_RELAY_UNSUPPORTED'],
    ['an unknown model', { provider: 'copilot', model: 'gpt-5-4' }, {}, 'REMOTE_RELAY_UNKNOWN_MODEL'],
    ["Claude's id on Copilot", { provider: 'copilot', model: 'claude-opus-5-5' }, {}, 'CLAUDE_PROVIDER_REQUIRED'],
    ['an unavailable provider', { provider: 'claude-api' }, {}, 'REMOTE_RELAY_PROVIDER_UNAVAILABLE'],
    ['an effort the provider lacks', { provider: 'script', effort: 'high' }, {}, 'REMOTE_RELAY_INVALID_INPUT'],
    ['a bad mode', { mode: 'yolo' }, {}, 'REMOTE_RELAY_INVALID_INPUT'],
    ['a folder outside the roots', { cwd: '/etc' }, {}, 'REMOTE_RELAY_INVALID_INPUT'],
    ['a relative folder', { cwd: 'shop' }, {}, 'REMOTE_RELAY_INVALID_INPUT'],
    ['repo without claude-cloud', { repo: 'org/repo' }, {}, 'REMOTE_RELAY_INVALID_INPUT'],
    ['branch without claude-cloud', { branch: 'main' }, {}, 'REMOTE_RELAY_INVALID_INPUT'],
    ['claude-cloud with a folder', { provider: 'claude-cloud', repo: 'org/repo', cwd: '/home/dev' }, {}, 'REMOTE_RELAY_INVALID_INPUT'],
    ['claude-cloud without a repo', { provider: 'claude-cloud' }, {}, 'REMOTE_RELAY_INVALID_INPUT'],
    ['a malformed repo', { provider: 'claude-cloud', repo: 'just-a-name' }, {}, 'REMOTE_RELAY_INVALID_INPUT'],
    ['an overlong title', { title: 'x'.repeat(201) }, {}, 'REMOTE_RELAY_INVALID_INPUT'],
    ['a fifth session at work', {}, { atWork: 4 }, 'REMOTE_RELAY_ACTIVE_LIMIT'],
    ['an agent-created caller without mayCreateSessions', {}, { caller: { ...caller, startedBySessionId: 'grand' } }, 'REMOTE_RELAY_NESTING'],
  ])('refuses %s', (_, overrides, contextOverrides, code) => {
    const error = refusalOf(() => planCreateSession(input(overrides), context(contextOverrides)));
    expect(error.code).toBe(code);
    expect(error.message.length).toBeGreaterThan(10);
  });

  it('checks the model before availability', () => {
    const error = refusalOf(() => planCreateSession(input({ provider: 'claude-api', model: 'claude-opus-5.5' }), context()));
    expect(error.code).toBe('REMOTE_RELAY_UNKNOWN_MODEL');
  });

  it('lets an agent-created caller start sessions once the owner switched mayCreateSessions on', () => {
    const nested = { ...caller, startedBySessionId: 'grand', mayCreateSessions: true };
    expect(planCreateSession(input(), context({ caller: nested })).provider.id).toBe('claude');
  });

  it('gives the unavailable provider its reason and code', () => {
    const error = refusalOf(() => planCreateSession(input({ provider: 'claude-api' }), context()));
    expect(error.message).toBe('Claude API is not available on relay "build-box": this relay cannot run Claude API sessions yet. Nothing was created.');
    expect(error.details).toEqual({ provider: 'claude-api', remoteCode: 'CLAUDE_API_NOT_RUNNABLE' });
  });

  it('takes a Claude Cloud session on a repository and branch, with no folder', () => {
    const plan = planCreateSession(input({ provider: 'claude-cloud', repo: 'example-org/sample-repo', branch: 'feature/banner' }), context());
    expect(plan).toMatchObject({ cwd: '', repo: 'example-org/sample-repo', branch: 'feature/banner' });
  });

  it('marks the first session a conversation starts, and only that one', () => {
    expect(planCreateSession(input(), context({ startedCount: 0 })).firstStartedByCaller).toBe(true);
    expect(planCreateSession(input(), context({ startedCount: 1 })).firstStartedByCaller).toBe(false);
  });

  it('allows the fourth session at work', () => {
    expect(planCreateSession(input(), context({ atWork: 3 })).provider.id).toBe('claude');
  });
});
