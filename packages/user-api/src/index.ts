/**
 * The user API's contract for its clients (the console, the CLI): the types openapi-typescript generates from the
 * gateway's OpenAPI document (src/gen/openapi.ts, `npm run generate`), and a typed call over them. Each client brings
 * its own transport (the console's cookie, the CLI's bearer token and timeouts); the path, its parameters, the body
 * and the answer are the document's.
 */
import type { components, paths } from './gen/openapi.ts';

/** The user API's named shapes (the document's components): `Schemas['Session']`, `Schemas['Card']`, … */
export type Schemas = components['schemas'];

export type ApiMethod = 'get' | 'put' | 'post' | 'patch' | 'delete';

/** The paths that answer `method`. */
export type ApiPath<M extends ApiMethod> = { [P in keyof paths]: paths[P][M] extends undefined ? never : P }[keyof paths];

type Operation<P extends keyof paths, M extends ApiMethod> = NonNullable<paths[P][M]>;

type JsonBody<T> = T extends { content: { 'application/json': infer B } } ? B : never;

/** What a call gives: its path and query parameters (as the document names them) and its JSON body. */
export type ApiOptions<P extends ApiPath<M>, M extends ApiMethod> = Omit<Operation<P, M>['parameters'], 'header' | 'cookie'> &
  (Operation<P, M> extends { requestBody: infer B }
    ? { body: JsonBody<B> }
    : Operation<P, M> extends { requestBody?: infer B }
      ? { body?: JsonBody<B> }
      : object);

/** The JSON body a call sends. */
export type ApiBody<P extends ApiPath<M>, M extends ApiMethod> = Operation<P, M> extends { requestBody?: infer B } ? JsonBody<NonNullable<B>> : never;

/** The JSON a successful call answers (200 or 201). */
export type ApiAnswer<P extends ApiPath<M>, M extends ApiMethod> = {
  [S in keyof Operation<P, M>['responses']]: S extends 200 | 201 ? JsonBody<Operation<P, M>['responses'][S]> : never;
}[keyof Operation<P, M>['responses']];

/** The options as an argument: optional when nothing in them is required. */
type OptionsArgument<P extends ApiPath<M>, M extends ApiMethod> = object extends ApiOptions<P, M> ? [options?: ApiOptions<P, M>] : [options: ApiOptions<P, M>];

/** Sends one request: the method, the path with its query, and the JSON body when there is one; answers the parsed JSON or throws the client's refusal. */
export type ApiTransport = (method: Uppercase<ApiMethod>, path: string, body: unknown) => Promise<unknown>;

interface LooseOptions {
  path?: Record<string, string>;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
}

/** `path` with its {parameters} filled in (encoded) and its query appended. */
export function apiUrl<P extends ApiPath<M>, M extends ApiMethod = 'get'>(path: P, ...[options]: OptionsArgument<P, M>): string {
  const { path: parameters = {}, query = {} } = (options ?? {}) as LooseOptions;
  const filled = path.replace(/\{(\w+)\}/g, (_whole, name: string) => {
    const value = parameters[name];
    if (value === undefined) throw new Error(`${path} needs its ${name}`);
    return encodeURIComponent(value);
  });
  const search = new URLSearchParams(Object.entries(query).flatMap(([name, value]) => (value === undefined ? [] : [[name, String(value)]]))).toString();
  return search === '' ? filled : `${filled}?${search}`;
}

/** The user API's calls over `transport`, typed by the document: `api.get('/api/v1/sessions/{id}', { path: { id } })`. */
export function createUserApi(transport: ApiTransport) {
  const method =
    <M extends ApiMethod>(name: M) =>
    <P extends ApiPath<M>>(path: P, ...[options]: OptionsArgument<P, M>): Promise<ApiAnswer<P, M>> => {
      const url = apiUrl<P, M>(path, ...([options] as OptionsArgument<P, M>));
      return transport(name.toUpperCase() as Uppercase<M>, url, (options as LooseOptions | undefined)?.body) as Promise<ApiAnswer<P, M>>;
    };
  return { get: method('get'), put: method('put'), post: method('post'), patch: method('patch'), delete: method('delete') };
}

/** The user API's calls, as createUserApi makes them. */
export type UserApi = ReturnType<typeof createUserApi>;
