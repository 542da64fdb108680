/**
 * relay_tool as tools/list shows it. The input schema documents the arguments for the model; the
 * gateway checks every call itself (arguments.ts), so a bad call still gets the spec's result.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { ACTION_NAMES, ARGUMENTS, type ArgumentType } from './action-table.ts';
import { MAX_LENGTH, MAX_LIST_ITEMS, type Bound } from './input-bounds.ts';

export const TOOL_NAME = 'relay_tool';
/** The name up to 0.9.17: still answered, never listed (spec, The name). */
export const LEGACY_TOOL_NAME = 'remote_relay';

const JSON_TYPES: Record<ArgumentType, Record<string, unknown>> = {
  string: { type: 'string' },
  integer: { type: 'integer' },
  boolean: { type: 'boolean' },
  strings: { type: 'array', items: { type: 'string' } },
  object: { type: 'object' },
  string_or_integer: { type: ['string', 'integer'] },
};

/** An argument's JSON schema: its type, and the bound of its strings where the schema can say it. */
function schemaOf(argument: { type: ArgumentType; bound?: Bound; description: string }): Record<string, unknown> {
  const maxLength = argument.bound === undefined ? undefined : MAX_LENGTH[argument.bound];
  const bounded: Record<ArgumentType, Record<string, unknown>> = {
    ...JSON_TYPES,
    string: { ...JSON_TYPES.string, maxLength },
    strings: { type: 'array', items: { type: 'string', maxLength }, maxItems: MAX_LIST_ITEMS },
  };
  return { ...bounded[argument.type], description: argument.description };
}

export const RELAY_TOOL_DEFINITION: Tool = {
  name: TOOL_NAME,
  title: 'Relay tool',
  description: [
    'Work with other agent sessions on this relay and on paired relays: list and read them, prompt one and wait for its reply,',
    'start a new one, answer its questions, stop or archive it, watch sessions to be woken when something happens,',
    'schedule prompts and ask the user questions that do not block.',
    'Every call names an action; every action except list_relays names a relay ("this" for the relay you run on).',
    'Start with list_relays. A result is JSON: "ok": true with a one-line summary, or "ok": false with a code and an error that says what to do.',
  ].join(' '),
  inputSchema: {
    type: 'object',
    properties: {
      action: { type: 'string', enum: ACTION_NAMES, description: 'What to do.' },
      ...Object.fromEntries(
        Object.entries(ARGUMENTS).map(([name, argument]) => [name, schemaOf(argument)]),
      ),
    },
    required: ['action'],
  },
};
