import { describe, expect, it } from 'vitest';
import { interpolate, showValue } from '../../src/adapters/providers/script/interpolate.ts';

const result = { ok: true, session: 's-1', reply: { text: 'He said "hi"\nthen left', model: 'script-1' }, sessions: [{ id: 'a' }, { id: 'b' }], count: 2 };

describe('interpolate', () => {
  it('puts in the whole result as JSON, fields unquoted, and the answer', () => {
    expect(interpolate('all {{result}}', { result: { a: 1 }, answer: '' })).toBe('all {"a":1}');
    expect(interpolate('session {{result.session}} said {{result.reply.model}}', { result, answer: '' })).toBe('session s-1 said script-1');
    expect(interpolate('you chose {{answer}}', { answer: 'Tonight' })).toBe('you chose Tonight');
  });

  it('shows non-string fields as JSON and reaches array items by index', () => {
    expect(interpolate('{{result.count}} {{result.ok}} {{result.sessions.1.id}} {{result.sessions}}', { result, answer: '' })).toBe(
      '2 true b [{"id":"a"},{"id":"b"}]',
    );
  });

  it('puts nothing for what is not there, and leaves unknown placeholders as written', () => {
    expect(interpolate('[{{result}}] [{{result.nope.deeper}}] [{{ answer }}] {{other}}', { answer: '' })).toBe('[] [] [] {{other}}');
  });

  it('allows spaces inside the braces', () => {
    expect(interpolate('{{ result.session }}', { result, answer: '' })).toBe('s-1');
  });

  it('in JSON, escapes a placeholder inside a string literal and inserts one outside as it is', () => {
    const json = interpolate(
      '{"action":"send","text":"Reply to: {{result.reply.text}}","payload":{{result.sessions}},"n":{{result.count}}}',
      {
        result,
        answer: '',
      },
      { json: true },
    );
    expect(JSON.parse(json)).toEqual({ action: 'send', text: 'Reply to: He said "hi"\nthen left', payload: [{ id: 'a' }, { id: 'b' }], n: 2 });
  });

  it('in JSON, is not fooled by escaped quotes before a placeholder', () => {
    const json = interpolate('{"text":"a \\"quoted\\" {{answer}}"}', { answer: 'x"y' }, { json: true });
    expect(JSON.parse(json)).toEqual({ text: 'a "quoted" x"y' });
  });
});

describe('showValue', () => {
  it.each([
    [undefined, ''],
    ['text', 'text'],
    [null, 'null'],
    [3, '3'],
    [{ a: [1] }, '{"a":[1]}'],
  ])('%j → %j', (value, shown) => {
    expect(showValue(value)).toBe(shown);
  });
});
