import { isAppError } from '@relay/errors';
import { describe, expect, it } from 'vitest';
import { parseAction, parseArguments } from '../src/app/relay-tool/arguments.ts';
import { boundFault, findBoundFault, MAX_LENGTH, preview } from '../src/domain/input-bounds.ts';
import { RELAY_TOOL_DEFINITION } from '../src/adapters/http/mcp/relay-tool-definition.ts';

const LONE_HIGH = '\uD83D';
const LONE_LOW = '\uDE00';

function refusalOf(input: unknown) {
  try {
    parseArguments(parseAction(input));
  } catch (error) {
    if (isAppError(error)) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('preview', () => {
  it('quotes a short value whole', () => {
    expect(preview('s1')).toBe('"s1"');
  });

  it('shows 40 characters of a long one, then its length', () => {
    expect(preview('x'.repeat(100_000))).toBe(`"${'x'.repeat(40)}"… (100000 characters)`);
  });

  it('never cuts a surrogate pair in half', () => {
    const value = `${'x'.repeat(39)}😀${'y'.repeat(10)}`;
    expect(preview(value)).toBe(`"${'x'.repeat(39)}"… (${value.length} characters)`);
  });

  it('shows a NUL escaped', () => {
    expect(preview('a\u0000b')).toBe('"a\\u0000b"');
  });
});

describe('boundFault', () => {
  it.each([
    ['a NUL', `abc\u0000def`, 'text', /NUL/],
    ['a lone high surrogate', `abc${LONE_HIGH}`, 'text', /lone UTF-16 surrogate/],
    ['a lone low surrogate', `${LONE_LOW}abc`, 'name', /lone UTF-16 surrogate/],
    ['an id over 64 characters', 'a'.repeat(65), 'id', /longer than 64/],
    ['an id with a space', 'my session', 'id', /must be an id/],
    ['an id with a slash', '../etc', 'id', /must be an id/],
    ['a title over 200 characters', 't'.repeat(201), 'name', /longer than 200/],
    ['a prompt over 100,000 characters', 'p'.repeat(100_001), 'text', /longer than 100000/],
  ] as const)('refuses %s', (_label, value, bound, fault) => {
    expect(boundFault(value, bound)).toMatch(fault);
  });

  it.each([
    ['a UUID', '3f9c2a1e-7b04-4c1d-9e55-0a1b2c3d4e5f', 'id'],
    ["a schedule firing's message id", 'sch_3f9c2a1e7b04:2026-11-02T02:00:00.000Z', 'id'],
    ['an id of exactly 64 characters', 'a'.repeat(64), 'id'],
    ['a title with an emoji (a surrogate pair)', 'Review 😀', 'name'],
    ['a prompt of exactly 100,000 characters', 'p'.repeat(MAX_LENGTH.text), 'text'],
  ] as const)('keeps %s', (_label, value, bound) => {
    expect(boundFault(value, bound)).toBeUndefined();
  });

  it('shows at most a short prefix of what it refuses', () => {
    expect(boundFault(`${'a'.repeat(100_000)}`, 'id')!.length).toBeLessThan(120);
  });
});

describe('findBoundFault', () => {
  it('names the list item or object value that breaks its bound', () => {
    expect(findBoundFault(['ok', `b\u0000d`], 'options', () => 'name')).toMatchObject({ field: 'options[1]' });
    expect(findBoundFault({ from: '22:00', tz: `Europe${LONE_HIGH}` }, 'quiet_hours', () => 'name')).toMatchObject({ field: 'quiet_hours.tz' });
  });

  it('refuses a key with a NUL, too many items and too deep a nesting', () => {
    expect(findBoundFault({ [`a\u0000`]: 1 }, 'quiet_hours', () => 'name')?.fault).toMatch(/key that contains a NUL/);
    expect(
      findBoundFault(
        Array.from({ length: 101 }, () => 's'),
        'sessions',
        () => 'id',
      )?.fault,
    ).toMatch(/more than 100 items/);
    let deep: unknown = 'x';
    for (let i = 0; i < 20; i += 1) deep = [deep];
    expect(findBoundFault(deep, 'extra', () => 'text')?.fault).toMatch(/deeper than 8/);
  });
});

describe('relay_tool arguments keep their bounds', () => {
  it.each([
    ['a NUL in text', { action: 'send', relay: 'this', session: 's1', text: 'hi\u0000' }, '"text"'],
    ['a lone surrogate in title', { action: 'create_session', relay: 'this', text: 'go', title: `T${LONE_LOW}` }, '"title"'],
    ['a 100,000-character session', { action: 'read_session', relay: 'this', session: 'a'.repeat(100_000) }, '"session"'],
    ['a session that is no id', { action: 'stop', relay: 'this', session: 'drop table;' }, '"session"'],
    ['a NUL in an option', { action: 'ask', question: 'Which?', options: ['a', 'b\u0000'] }, '"options[1]"'],
    ['a NUL in an argument no action takes', { action: 'list_relays', colour: 'bl\u0000ue' }, '"colour"'],
    ['a NUL in an argument name', { action: 'list_relays', [`col\u0000our`]: 'blue' }, "argument's name"],
  ])('refuses %s with REMOTE_RELAY_INVALID_INPUT naming the field', (_label, input, field) => {
    const error = refusalOf(input);
    expect(error.code).toBe('REMOTE_RELAY_INVALID_INPUT');
    expect(error.message).toContain(field);
  });

  it('echoes no more than a short prefix of an over-long value', () => {
    const error = refusalOf({ action: 'read_session', relay: 'this', session: 'a'.repeat(100_000) });
    expect(error.message.length).toBeLessThan(200);
    const unknown = refusalOf({ action: `x${'y'.repeat(100_000)}` });
    expect(unknown.message).not.toContain('y'.repeat(41));
  });

  it('lets ids, names and texts within their bounds through', () => {
    const call = parseAction({ action: 'send', relay: 'this', session: '3f9c2a1e-7b04-4c1d-9e55-0a1b2c3d4e5f', text: 'p'.repeat(MAX_LENGTH.text) });
    expect(parseArguments(call).args.text).toHaveLength(MAX_LENGTH.text);
  });
});

describe('the tool schema', () => {
  it('shows the same bounds the gateway checks', () => {
    const properties = RELAY_TOOL_DEFINITION.inputSchema.properties as Record<
      string,
      { maxLength?: number; maxItems?: number; items?: { maxLength?: number } }
    >;
    expect(properties.session!.maxLength).toBe(MAX_LENGTH.id);
    expect(properties.title!.maxLength).toBe(MAX_LENGTH.name);
    expect(properties.text!.maxLength).toBe(MAX_LENGTH.text);
    expect(properties.sessions).toMatchObject({ maxItems: 100, items: { maxLength: MAX_LENGTH.id } });
  });
});
