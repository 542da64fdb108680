// docs/relay-tool.md is the project's own reference for relay_tool: it has a section for every action that names
// each of its arguments and shows a call, and it lists every code a result may carry. Read off the action
// definitions and the code catalogue, so a new action, argument or code fails here until it is documented.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ACTION_NAMES, actionNamed } from '../src/app/relay-tool/action-list.ts';
import { RELAY_TOOL_CODES } from '../src/domain/errors.ts';

const docs = readFileSync(new URL('../../../docs/relay-tool.md', import.meta.url), 'utf8');

/** The text of the action's own section: from its heading to the next heading. */
function sectionOf(action: string): string {
  const start = docs.indexOf(`\n### \`${action}\`\n`);
  if (start < 0) return '';
  const end = docs.indexOf('\n#', start + 1);
  return docs.slice(start, end < 0 ? undefined : end);
}

describe('docs/relay-tool.md', () => {
  it.each(ACTION_NAMES)('has a section for %s naming each argument, with an example call', (action) => {
    const section = sectionOf(action);
    expect(section, `no "### \`${action}\`" section`).not.toBe('');
    for (const argument of Object.keys(actionNamed(action).args.shape)) expect(section).toContain(`\`${argument}\``);
    expect(section).toContain(`"action": "${action}"`);
  });

  it('lists every code a relay_tool result may carry', () => {
    const table = docs.slice(docs.indexOf('## Error codes'));
    for (const code of RELAY_TOOL_CODES) expect(table).toContain(`\`${code}\``);
  });
});
