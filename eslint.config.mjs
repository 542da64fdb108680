// ESLint for the whole tree (typescript-eslint, flat config) with the layering rules of STYLE.md as a rule of our
// own: no service imports another or a package's src/; domain/ stays pure, app/ imports domain/ only, and an
// adapter (adapters/<name>/) imports domain/ and app/, never another adapter. main.ts alone wires everything.
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const root = dirname(fileURLToPath(import.meta.url));
const SERVICES = ['gateway', 'session', 'subscription', 'scheduler', 'question', 'pairing'];
/** What domain/ may not import (types aside): adapters' technologies, generated code, I/O. */
const IMPURE =
  /^(@relay\/(proto|bus|rpc|db|testing)|@prisma\/|pg$|@nats-io\/|@grpc\/|fastify|@modelcontextprotocol\/|node:(fs|child_process|http|https|net\/|dgram|worker_threads))/;

/**
 * Where a file sits: its service, its room (domain, app or adapters; the first folder under src/, undefined for
 * main.ts and config.ts) and, in adapters/, which adapter (the folder under adapters/). Undefined outside services.
 */
function placeOf(file) {
  const match = /^services\/([^/]+)\/src\/(?:([^/]+)\/)?(?:([^/]+)\/)?/.exec(relative(root, file));
  if (!match) return undefined;
  const [, service, room, sub] = match;
  return room === 'adapters' ? { service, room, adapter: sub } : { service, room };
}

/** Why importing `specifier` from `file` breaks the layering, or undefined. */
function layeringFault(file, specifier, typeOnly) {
  const from = placeOf(file);
  if (from === undefined) return undefined;
  if (/^@relay\/[a-z-]+\/src\//.test(specifier)) return "reaches into a package's src/";
  if (!specifier.startsWith('.')) {
    const other = /^@relay\/([a-z-]+)/.exec(specifier)?.[1];
    if (other !== undefined && SERVICES.includes(other)) return `imports another service (${other})`;
    if (from.room === 'domain' && !typeOnly && IMPURE.test(specifier)) return `domain/ imports ${specifier}`;
    return undefined;
  }
  const target = placeOf(resolve(dirname(file), specifier));
  if (target?.service !== from.service) return 'imports another service';
  if (from.room === 'domain' && target.room !== 'domain') return `domain/ imports ${target.room ?? 'src'}/`;
  if (from.room === 'app' && target.room !== 'domain' && target.room !== 'app') return `app/ imports ${target.room ?? 'src'}/`;
  if (from.room === 'adapters' && target.room === 'adapters' && from.adapter !== target.adapter) {
    return `adapter ${from.adapter}/ imports adapter ${target.adapter}/`;
  }
  return undefined;
}

/** The relay/layering rule (test/architecture/layering-rule.test.ts runs it over cases of each fault). */
export const layering = {
  meta: { type: 'problem', schema: [], messages: { fault: '{{fault}} ({{specifier}}): STYLE.md, who may import what' } },
  create(context) {
    const check = (node) => {
      if (node.source === null || node.source === undefined) return;
      const specifier = node.source.value;
      const fault = layeringFault(context.filename, specifier, node.importKind === 'type' || node.exportKind === 'type');
      if (fault !== undefined) context.report({ node: node.source, messageId: 'fault', data: { fault, specifier } });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check };
  },
};

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/generated/**',
      'packages/proto/src/gen/**',
      'console/dist/**',
      '.relay/**',
      '**/*.js',
      '**/*.mjs',
      '**/*.cjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { relay: { rules: { layering } } },
    rules: {
      'relay/layering': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  // A refusal's kind comes from the one catalogue (@relay/errors appError); only decoders of another relay's or
  // service's answer build an AppError from the code and kind they read.
  {
    files: ['services/*/src/**/*.ts', 'packages/*/src/**/*.ts', 'cli/src/**/*.ts'],
    ignores: [
      'packages/errors/src/**',
      'packages/rpc/src/grpc-error.ts',
      'services/pairing/src/adapters/http/relay-client.ts',
      'services/pairing/src/adapters/http/remote-relay-call.ts',
    ],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: "NewExpression[callee.name='AppError']", message: 'Use appError(code, message): the kind comes from the catalogue in @relay/errors.' },
      ],
    },
  },
  // Tests read untyped JSON answers and poke at private shapes; in src/ `any` stays an error.
  { files: ['**/test/**/*.ts', '**/*.test.ts', 'bench/**/*.ts'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
);
