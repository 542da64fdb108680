import { isAppError } from '@relay/errors';
import { describe, expect, it } from 'vitest';
import { ACTION_NAMES, actionNamed } from '../src/app/relay-tool/action-list.ts';
import { isEmpty, parseAction, parseArguments } from '../src/app/relay-tool/arguments.ts';
import { requireArguments } from '../src/domain/require-arguments.ts';

function parse(input: unknown) {
  const call = parseAction(input);
  return { action: call.action, ...parseArguments(call) };
}

function refusal(input: unknown) {
  try {
    parse(input);
  } catch (error) {
    if (isAppError(error)) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('parseAction', () => {
  it.each([
    ['a string', 'list_relays'],
    ['a list', [{ action: 'list_relays' }]],
    ['null', null],
  ])('refuses arguments that are %s', (_label, input) => {
    expect(refusal(input).code).toBe('REMOTE_RELAY_INVALID_INPUT');
  });

  it('refuses a call without action, naming the valid actions', () => {
    const error = refusal({ relay: 'this' });
    expect(error.code).toBe('REMOTE_RELAY_INVALID_INPUT');
    for (const name of ACTION_NAMES) expect(error.message).toContain(name);
  });

  it('refuses an action that is not a string', () => {
    expect(refusal({ action: 7 }).code).toBe('REMOTE_RELAY_INVALID_INPUT');
  });

  it('refuses an unknown action, naming the valid ones', () => {
    const error = refusal({ action: 'list_everything' });
    expect(error.code).toBe('REMOTE_RELAY_INVALID_INPUT');
    expect(error.message).toContain('list_everything');
    expect(error.message).toContain('list_sessions');
  });

  it('reads the action regardless of case and surrounding spaces', () => {
    expect(parseAction({ action: ' List_Relays ' }).action).toBe('list_relays');
  });
});

describe('parseArguments', () => {
  it.each([null, '', false, []])('counts %j as no argument', (empty) => {
    expect(isEmpty(empty)).toBe(true);
    const parsed = parse({ action: 'list_sessions', relay: 'this', scope: empty, session: empty });
    expect(parsed.args).toEqual({ relay: 'this' });
    expect(parsed.ignored).toEqual([]);
  });

  it('keeps 0 and true as arguments', () => {
    expect(isEmpty(0)).toBe(false);
    expect(parse({ action: 'wait', relay: 'this', session: 's', message_id: 'm', wait_seconds: 0 }).args.wait_seconds).toBe(0);
    expect(parse({ action: 'subscribe', once: true }).args.once).toBe(true);
  });

  it('lists the arguments an action does not take in ignored, in the order given', () => {
    const parsed = parse({ action: 'list_sessions', text: 'hello', relay: 'this', last: 5 });
    expect(parsed.args).toEqual({ relay: 'this' });
    expect(parsed.ignored).toEqual(['text', 'last']);
  });

  it('lists even names no action knows', () => {
    expect(parse({ action: 'list_relays', relay: 'this', colour: 'blue' }).ignored).toEqual(['relay', 'colour']);
  });

  it('takes the names of Object.prototype ("constructor", "toString", "__proto__") as names no action knows', () => {
    const input = JSON.parse('{"action":"send","relay":"this","constructor":"x","toString":1,"__proto__":{"a":1},"hasOwnProperty":true}') as Record<
      string,
      unknown
    >;
    const parsed = parse(input);
    expect(parsed.args).toEqual({ relay: 'this' });
    expect(parsed.ignored).toEqual(['constructor', 'toString', '__proto__', 'hasOwnProperty']);
  });

  it('lists at most 20 ignored arguments', () => {
    const extra = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`extra_${i}`, i + 1]));
    const parsed = parse({ action: 'list_relays', ...extra });
    expect(parsed.ignored).toHaveLength(20);
    expect(parsed.ignored[0]).toBe('extra_0');
    expect(parsed.ignored[19]).toBe('extra_19');
  });

  it('does not check the type of an ignored argument', () => {
    expect(parse({ action: 'list_relays', scope: 42 }).ignored).toEqual(['scope']);
  });

  it.each([
    ['create_session', { action: 'create_session', relay: 'this', text: 'go', session: 's1' }, 'Nothing was created.'],
    ['update_session', { action: 'update_session', relay: 'this', session: 's1', model: 'm', text: 'x' }, 'Nothing was changed.'],
  ])('%s refuses an argument it does not take, naming its own', (action, input, ending) => {
    const error = refusal(input);
    expect(error.code).toBe('REMOTE_RELAY_INVALID_INPUT');
    expect(error.message).toMatch(new RegExp(`^${action} does not take: (session|text)\\. Its arguments: relay, `));
    expect(error.message.endsWith(ending)).toBe(true);
  });

  // The spec's sentence, its list ending with budget, this relay's extension (docs/relay-tool.md).
  it('matches the spec sentence for create_session', () => {
    expect(refusal({ action: 'create_session', relay: 'this', text: 'go', session: 's1' }).message).toBe(
      'create_session does not take: session. Its arguments: relay, text, provider, model, cwd, repo, branch, mode, effort, title, group, wait_seconds, budget. Nothing was created.',
    );
  });

  it('lets create_session pass empty values of arguments it does not take', () => {
    expect(parse({ action: 'create_session', relay: 'this', text: 'go', session: '', sessions: [] }).ignored).toEqual([]);
  });

  it.each([
    [{ action: 'list_sessions', relay: 3 }, 'relay'],
    [{ action: 'list_sessions', relay: 'this', scope: ['active'] }, 'scope'],
    [{ action: 'read_session', relay: 'this', session: 's', last: 2.5 }, 'last'],
    [{ action: 'read_session', relay: 'this', session: 's', last: '5' }, 'last'],
    [{ action: 'subscribe', sessions: ['a', 1] }, 'sessions'],
    [{ action: 'subscribe', quiet_hours: 'night' }, 'quiet_hours'],
    [{ action: 'subscribe', once: 'yes' }, 'once'],
  ])('refuses a wrong type: %j', (input, name) => {
    const error = refusal(input);
    expect(error.code).toBe('REMOTE_RELAY_INVALID_INPUT');
    expect(error.message).toContain(`"${name}"`);
  });

  it('refuses an action that needs relay without one', () => {
    const error = refusal({ action: 'list_sessions' });
    expect(error.code).toBe('REMOTE_RELAY_INVALID_INPUT');
    expect(error.message).toContain('relay');
  });

  it('lets the subscription, schedule and question actions leave relay out', () => {
    for (const action of ['subscribe', 'list_subscriptions', 'list_schedules', 'ask', 'list_questions']) {
      expect(parse({ action }).args).toEqual({});
    }
  });
});

describe('requireArguments', () => {
  it('passes when every required argument is there', () => {
    expect(() => requireArguments(actionNamed('send'), { session: 's1', text: 'hi' }, ['session', 'text'])).not.toThrow();
  });

  it('names what is needed and what is missing', () => {
    expect(() => requireArguments(actionNamed('send'), { session: 's1' }, ['session', 'text'])).toThrow('send needs session and text; missing: text.');
  });

  it('ends with "Nothing was created." for create_session', () => {
    expect(() => requireArguments(actionNamed('create_session'), {}, ['text'])).toThrow(
      expect.objectContaining({ code: 'REMOTE_RELAY_INVALID_INPUT', message: 'create_session needs text; missing: text. Nothing was created.' }),
    );
  });
});
