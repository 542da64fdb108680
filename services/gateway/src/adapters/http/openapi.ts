/**
 * The user API's one contract (docs/adr/0038): every /api/v1 route declares its parameters, body and answers as zod
 * schemas; Fastify validates requests and serializes answers through them (an answer that does not match its schema
 * is a fault, never sent), and @fastify/swagger publishes them as an OpenAPI 3.1 document at /api/v1/openapi.json.
 * The console and the CLI use the types and the client @relay/user-api generates from that document.
 */
import fastifySwagger from '@fastify/swagger';
import type { FastifyInstance, FastifyRequest, FastifyReply } from 'fastify';
import {
  hasZodFastifySchemaValidationErrors,
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import { z } from 'zod';
import { RELAY_VERSION } from '../../domain/version.ts';
import { sendError } from './user-api.ts';

/** Where the document is served. */
export const OPENAPI_PATH = '/api/v1/openapi.json';

/** A refusal of the user API: its REMOTE_RELAY_* code and a sentence for a person. */
export const Refusal = z.strictObject({ code: z.string(), error: z.string() }).meta({ id: 'Refusal' });

const refusals = { '4xx': Refusal, '5xx': Refusal } as const;

/** A route's answers: `ok` with 200, a Refusal with 4xx and 5xx. */
export function answers<T extends z.ZodType>(ok: T) {
  return { 200: ok, ...refusals };
}

/** A route's answers when it makes something: `made` with 201, a Refusal with 4xx and 5xx. */
export function madeAnswers<T extends z.ZodType>(made: T) {
  return { 201: made, ...refusals };
}

/**
 * The app with the zod type provider: a route's request and reply types follow its schemas. Every user API route is
 * registered with `attachValidation`, so it authenticates first (401 before 400) and then answers invalidInput.
 */
export function typed(app: FastifyInstance) {
  return app.withTypeProvider<ZodTypeProvider>();
}

/**
 * 400 REMOTE_RELAY_INVALID_INPUT when the request did not match its route's schemas (the path's faults named as such),
 * else undefined. Called once the caller is authenticated.
 */
export function invalidInput(request: FastifyRequest, reply: FastifyReply): FastifyReply | undefined {
  const error = request.validationError;
  if (error === undefined) return undefined;
  const issues: { instancePath: string; message?: string }[] = hasZodFastifySchemaValidationErrors(error) ? error.validation : [];
  if (error.validationContext === 'params') {
    const problems = issues.map((issue) => `${issue.instancePath.slice(1).replaceAll('/', '.')}: ${issue.message}`).join('; ');
    return sendError(reply, 400, 'REMOTE_RELAY_INVALID_INPUT', `the path is wrong: ${problems}`);
  }
  return sendError(reply, 400, 'REMOTE_RELAY_INVALID_INPUT', issues.length > 0 ? issues.map((issue) => issue.message).join('; ') : error.message);
}

/**
 * Sets the zod compilers on `app` and registers the document's collector and its route; the routes registered after
 * it (in `app.after`) are in the document when they are under /api/v1.
 */
export function registerOpenApi(app: FastifyInstance): void {
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  void app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Relay user API',
        version: RELAY_VERSION,
        description:
          "A person's own side of the relay: their sessions, Inbox, cards, asks, schedules, settings and users. Every route takes a user's own bearer token.",
      },
      components: {
        securitySchemes: { userToken: { type: 'http', scheme: 'bearer', description: "A user's own token (rly_u_…); a session's token is refused." } },
      },
      security: [{ userToken: [] }],
    },
    transform: (route) =>
      route.url.startsWith('/api/v1/') && route.url !== OPENAPI_PATH ? jsonSchemaTransform(route) : { schema: { hide: true }, url: route.url },
    transformObject: (document) => referencedOnly(jsonSchemaTransformObject(document)),
  });
  app.after(() => {
    app.get(OPENAPI_PATH, async (_request, reply) => reply.header('cache-control', 'no-cache').send(app.swagger()));
  });
}

/**
 * The document with only the components its routes reach: zod's registry also holds other endpoints' schemas, and
 * each schema in an input and an output form, most of which no user API route uses.
 */
function referencedOnly<D extends object>(document: D): D {
  const { paths, components } = document as { paths?: unknown; components?: { schemas?: Record<string, unknown> } };
  const schemas = components?.schemas ?? {};
  const reached = new Set<string>();
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (typeof value !== 'object' || value === null) return;
    for (const [key, inner] of Object.entries(value)) {
      const name = key === '$ref' && typeof inner === 'string' ? /^#\/components\/schemas\/(.+)$/.exec(inner)?.[1] : undefined;
      if (name !== undefined && !reached.has(name)) {
        reached.add(name);
        walk(schemas[name]);
      }
      walk(inner);
    }
  };
  walk(paths);
  return { ...document, components: { ...components, schemas: Object.fromEntries(Object.entries(schemas).filter(([name]) => reached.has(name))) } };
}
