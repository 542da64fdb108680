import { describe, expect, it } from 'vitest';
import { parseScript, parseSeconds } from '../../src/adapters/providers/script/parse-script.ts';

describe('parseScript', () => {
  it('reads every kind of step, in order, with its line number', () => {
    const script = parseScript(
      ['reply Hello there', 'relay_tool {"action":"list_sessions"}', 'wait 2.5', 'ask_user Ship it? | Yes | No', 'fail out of coffee', 'task npm test'].join(
        '\n',
      ),
    );
    expect(script.problems).toEqual([]);
    expect(script.steps).toEqual([
      { kind: 'reply', line: 1, text: 'Hello there' },
      { kind: 'relay_tool', line: 2, json: '{"action":"list_sessions"}' },
      { kind: 'wait', line: 3, seconds: '2.5' },
      { kind: 'ask_user', line: 4, question: 'Ship it?', options: ['Yes', 'No'] },
      { kind: 'fail', line: 5, message: 'out of coffee' },
      { kind: 'task', line: 6, command: 'npm test' },
    ]);
  });

  it('ignores blank lines, # comments and [ header lines such as relay event rows', () => {
    const script = parseScript(
      '[Remote prompt from an agent on relay "desk" · session "Lead" · script-1 · acting for the user]\n\n# a comment\n  reply hi  \r\n[relay event] session "x": turn_end (done) "ok"',
    );
    expect(script).toEqual({ steps: [{ kind: 'reply', line: 4, text: 'hi' }], problems: [] });
  });

  it('finds no steps in a prompt that is not in the language', () => {
    const script = parseScript('Please review the code under server/.\nThank you!');
    expect(script.steps).toEqual([]);
    expect(script.problems).toHaveLength(2);
  });

  it('names a line that is not a step among steps', () => {
    const script = parseScript('reply one\nreplies two\nReply three');
    expect(script.steps).toHaveLength(1);
    expect(script.problems).toEqual([
      'line 2 is not a step (reply, relay_tool, wait, ask_user, fail, task): replies two',
      'line 3 is not a step (reply, relay_tool, wait, ask_user, fail, task): Reply three',
    ]);
  });

  it('takes reply without text as an empty line, and fail without a message as a generic one', () => {
    expect(parseScript('reply\nfail').steps).toEqual([
      { kind: 'reply', line: 1, text: '' },
      { kind: 'fail', line: 2, message: 'the script failed' },
    ]);
  });

  it.each([
    ['relay_tool', 'line 1: relay_tool needs a JSON object, e.g. relay_tool {"action":"list_sessions"}'],
    ['relay_tool {action: list}', 'line 1: relay_tool needs a JSON object, and this is not JSON: {action: list}'],
    ['relay_tool [1, 2]', 'line 1: relay_tool needs a JSON object, not [1, 2]'],
    ['wait', 'line 1: wait needs a number of seconds, not ""'],
    ['wait soon', 'line 1: wait needs a number of seconds, not "soon"'],
    ['wait -3', 'line 1: wait needs a number of seconds, not "-3"'],
    ['ask_user | Yes | No', 'line 1: ask_user needs a question, e.g. ask_user Ship it? | Yes | No'],
    ['task', 'line 1: task needs a shell command'],
  ])('refuses %j', (line, problem) => {
    expect(parseScript(line)).toEqual({ steps: [], problems: [problem] });
  });

  it('leaves steps with placeholders to be checked when they run', () => {
    const script = parseScript('relay_tool {"action":"wait","session":"{{result.session}}"}\nwait {{answer}}');
    expect(script.problems).toEqual([]);
    expect(script.steps.map((step) => step.kind)).toEqual(['relay_tool', 'wait']);
  });

  it('drops empty options of ask_user and keeps the rest trimmed', () => {
    expect(parseScript('ask_user Which one?|  A |  | B|').steps).toEqual([{ kind: 'ask_user', line: 1, question: 'Which one?', options: ['A', 'B'] }]);
  });
});

describe('parseSeconds', () => {
  it.each([
    ['5', 5],
    [' 0.25 ', 0.25],
    ['600', 600],
    ['five', undefined],
    ['', undefined],
    ['1e3', undefined],
  ])('%j → %j', (text, seconds) => {
    expect(parseSeconds(text)).toBe(seconds);
  });
});
