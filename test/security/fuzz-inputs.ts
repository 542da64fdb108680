/**
 * What an abusive agent or client sends, as fast-check arbitraries: relay_tool calls whose actions, argument
 * names and values are mangled (NUL bytes, lone surrogates, 100,000-character ids, wrong types, deep nesting,
 * long lists, prototype keys), and raw HTTP requests to every edge of the gateway with broken JSON, wrong
 * content types and bad tokens. The fuzz test (fuzz.test.ts) and the benchmark (bench/security-fuzz) send
 * the same inputs. The vocabulary comes from the relay itself (tools/list), as an agent sees it.
 */
import fc from 'fast-check';

/** The actions and argument names relay_tool's input schema lists. */
export interface Vocabulary {
  actions: string[];
  arguments: string[];
}

/** The vocabulary of a relay_tool definition from tools/list. */
export function vocabularyOf(tool: { inputSchema: { properties?: Record<string, unknown> } }): Vocabulary {
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, { enum?: string[] }>;
  return { actions: properties.action?.enum ?? [], arguments: Object.keys(properties).filter((name) => name !== 'action') };
}

/** Strings that have broken parsers, stores and logs before. */
const NASTY = [
  '\u0000',
  'a\u0000b',
  '\uD800',
  '\uDFFF',
  'x\uD83D',
  '\uDE00x',
  '😀',
  '%00',
  '../../../etc/passwd',
  "'; DROP TABLE sessions; --",
  '${jndi:ldap://127.0.0.1/x}',
  '{{7*7}}',
  '\r\nX-Injected: 1',
  '\u202Egnp.exe',
  ' ',
  'this',
  'all',
  '__proto__',
  'constructor',
  'NaN',
  '-1',
  '1e400',
];

/** Any UTF-16 code unit, so lone surrogates and control characters come up. */
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));

/** A string an attacker might send: nasty, random, or very long (with a NUL or surrogate at the end, sometimes). */
export const nastyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY) },
  { weight: 3, arbitrary: fc.string({ unit: codeUnit, maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 80 }) },
  { weight: 1, arbitrary: fc.uuid() },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 60, max: 120_000 }), fc.constantFrom('', '\u0000', '\uD800', '…'))
      .map(([length, end]) => `${'x'.repeat(length)}${end}`),
  },
);

/** Any JSON value, shallow or deep, with nasty strings in it. */
export const nastyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: nastyString },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double(), fc.constantFrom(0, -1, 2 ** 53, -(2 ** 63), 1e308)) },
  { weight: 1, arbitrary: fc.constantFrom(true, false, null) },
  { weight: 1, arbitrary: fc.array(nastyString, { maxLength: 6 }) },
  { weight: 1, arbitrary: fc.integer({ min: 101, max: 1_000 }).map((length) => Array.from({ length }, (_, i) => `s${i}`)) },
  { weight: 1, arbitrary: fc.dictionary(nastyString, nastyString, { maxKeys: 4 }) },
  { weight: 1, arbitrary: fc.integer({ min: 2, max: 200 }).map((depth) => nest(depth)) },
);

function nest(depth: number): unknown {
  let value: unknown = 'deep';
  for (let level = 0; level < depth; level += 1) value = level % 2 === 0 ? [value] : { inner: value };
  return value;
}

// A call that may wait for a turn could wait for minutes; a generated one never waits (0), so every answer is prompt.
const WAITING = new Set(['send', 'create_session', 'wait']);

/** A relay_tool call's arguments: a real, mangled or made-up action, and real or made-up arguments with any values. */
export function toolCall(vocabulary: Vocabulary): fc.Arbitrary<Record<string, unknown>> {
  const action = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...vocabulary.actions) },
    { weight: 1, arbitrary: fc.constantFrom(...vocabulary.actions).map((name) => ` ${name.toUpperCase()}\u0000`) },
    { weight: 1, arbitrary: nastyValue },
  );
  const name = fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...vocabulary.arguments) }, { weight: 1, arbitrary: nastyString });
  return fc
    .record({
      action,
      relay: fc.oneof(fc.constant('this'), fc.constant('this'), nastyValue),
      rest: fc.array(fc.tuple(name, nastyValue), { maxLength: 6 }),
    })
    .map(({ action, relay, rest }) => {
      const call: Record<string, unknown> = { action, relay };
      for (const [key, value] of rest) call[key] = value;
      if (typeof action === 'string' && WAITING.has(action.trim().toLowerCase())) call.wait_seconds = 0;
      return call;
    });
}

/** One raw HTTP request to the gateway; `auth` picks which token it carries. */
export interface HttpCase {
  method: string;
  path: string;
  auth: 'user' | 'session' | 'bogus' | 'none';
  contentType: string | undefined;
  body: string | undefined;
}

const JSON_RPC_METHODS = ['tools/call', 'tools/list', 'initialize', 'ping', 'resources/list', 'notifications/cancelled', 'nope'];

/** A JSON-RPC message to /mcp that is broken in its envelope, its method or its params. */
const jsonRpcBody: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({
    jsonrpc: fc.oneof(fc.constant('2.0'), nastyValue),
    id: fc.oneof(fc.integer(), nastyValue),
    method: fc.oneof(fc.constantFrom(...JSON_RPC_METHODS), nastyValue),
    params: fc.oneof(fc.record({ name: fc.oneof(fc.constant('relay_tool'), nastyValue), arguments: nastyValue }), nastyValue),
  }),
  fc.array(fc.record({ jsonrpc: fc.constant('2.0'), id: fc.integer(), method: fc.constantFrom(...JSON_RPC_METHODS), params: nastyValue }), { maxLength: 5 }),
);

/**
 * `value` percent-encoded for a URL, lone surrogates included: encodeURIComponent throws on those, so each is sent
 * as the three bytes UTF-8 would give its code unit (%ED%A0%80 for U+D800) — bytes no valid UTF-8 has.
 */
export function percentEncode(value: string): string {
  let encoded = '';
  for (const char of value) {
    const unit = char.charCodeAt(0);
    if (char.length === 1 && unit >= 0xd800 && unit <= 0xdfff) {
      encoded += [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join('');
    } else {
      encoded += encodeURIComponent(char);
    }
  }
  return encoded;
}

/** A request to one of the gateway's edges with a body that is broken somewhere. */
export function httpCase(): fc.Arbitrary<HttpCase> {
  const id = fc.oneof(
    fc.uuid(),
    nastyString.map((value) => percentEncode(value.slice(0, 300))),
  );
  const path = fc.oneof(
    fc.constant('/mcp'),
    fc.constant('/mcp'),
    fc.constant('/api/v1/sessions'),
    fc.constant('/api/v1/sessions/'),
    id.map((value) => `/api/v1/sessions/${value}`),
    id.map((value) => `/api/v1/sessions/${value}/messages`),
    fc.tuple(id, nastyString).map(([value, last]) => `/api/v1/sessions/${value}?last=${percentEncode(last.slice(0, 100))}`),
    fc.tuple(id, nastyString).map(([value, message]) => `/api/v1/sessions/${value}/wait?wait_seconds=0&message_id=${percentEncode(message.slice(0, 100))}`),
    fc.constant('/api/v1/pairings'),
    fc.constant('/api/v1/settings'),
    fc.constant('/api/v1/users'),
    id.map((value) => `/api/v1/cards/${value}`),
    fc.constant('/api/v1/cards/'),
    fc.constant('/relay/v1/pair'),
    fc.constant('/relay/v1/tool'),
    nastyString.map((value) => `/${percentEncode(value.slice(0, 200))}`),
  );
  const body = fc.oneof(
    jsonRpcBody.map((value) => JSON.stringify(value)),
    nastyValue.map((value) => JSON.stringify(value)),
    fc.record({ text: nastyValue, title: nastyValue, external: fc.constantFrom(undefined, true, 'yes') }).map((value) => JSON.stringify(value)),
    fc.record({ action: nastyValue, arguments: nastyValue }).map((value) => JSON.stringify(value)),
    fc.record({ code: nastyValue, name: nastyValue, url: nastyValue, token: nastyValue, version: nastyValue }).map((value) => JSON.stringify(value)),
    fc.string({ unit: codeUnit, maxLength: 200 }),
    fc.constantFrom('{', '{"text":', '[1,2', '{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"x":1}}}', 'null', '""', '\u0000'),
  );
  return fc.record({
    method: fc.constantFrom('POST', 'POST', 'GET', 'PATCH', 'PUT', 'DELETE'),
    path,
    auth: fc.constantFrom('user', 'session', 'session', 'bogus', 'none'),
    contentType: fc.constantFrom('application/json', 'application/json', 'text/plain', 'application/x-www-form-urlencoded', undefined),
    body: fc.option(body, { nil: undefined, freq: 8 }),
  });
}

/** `count` inputs of `arbitrary`, the same ones for the same seed: for the benchmark, which sends without asserting. */
export function sampleOf<T>(arbitrary: fc.Arbitrary<T>, count: number, seed: number): T[] {
  return fc.sample(arbitrary, { numRuns: count, seed });
}
