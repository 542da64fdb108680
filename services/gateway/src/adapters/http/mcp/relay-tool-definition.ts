/**
 * relay_tool as tools/list shows it. The input schema is made from the arguments' zod schemas
 * (tool-arguments.ts) and the list of actions; the gateway checks every call itself (arguments.ts)
 * against the same schemas, so a bad call still gets the spec's result.
 */
import type { Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { ACTION_NAMES } from '../../../app/relay-tool/action-list.ts';
import { ARGUMENTS } from '../../../domain/tool-arguments.ts';

export const TOOL_NAME = 'relay_tool';
/** The name up to 0.9.17: still answered, never listed (spec, The name). */
export const LEGACY_TOOL_NAME = 'remote_relay';

/** An argument's JSON Schema, without the `$schema` key a property does not carry. */
function schemaOf(argument: z.ZodType): Record<string, unknown> {
  const { $schema: _schema, ...schema } = z.toJSONSchema(argument, { io: 'input' });
  return schema;
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
      action: { type: 'string', enum: [...ACTION_NAMES], description: 'What to do.' },
      ...Object.fromEntries(Object.entries(ARGUMENTS).map(([name, argument]) => [name, schemaOf(argument)])),
    },
    required: ['action'],
  },
};
