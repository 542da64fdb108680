/**
 * relay_tool as tools/list shows it. The input schema documents the arguments for the model; the
 * gateway checks every call itself (arguments.ts), so a bad call still gets the spec's result.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { ACTION_NAMES, ARGUMENTS, type ArgumentType } from './action-table.ts';

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
        Object.entries(ARGUMENTS).map(([name, argument]) => [name, { ...JSON_TYPES[argument.type], description: argument.description }]),
      ),
    },
    required: ['action'],
  },
};
