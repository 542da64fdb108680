// Reading the user API in a view: the answer, the refusal, and a fresh read whenever the live part it depends on
// changes (live.ts). The last good answer stays on screen while a new read is under way.
import { useEffect, useState } from 'preact/hooks';
import type { ApiAnswer, ApiOptions, ApiPath } from '@relay/user-api';
import { ApiError, api } from './api.ts';
import { liveState, subscribeLive, type LivePart } from './live.ts';

export interface Resource<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
}

/** The live version of `part`, re-rendering when it changes. */
export function useLiveVersion(part: LivePart): number {
  const [version, setVersion] = useState(liveState().versions[part]);
  useEffect(() => subscribeLive(() => setVersion(liveState().versions[part])), [part]);
  return version;
}

/** Everything live.ts knows, re-rendering on each change (the header's Inbox count, the connection). */
export function useLive() {
  const [, setTick] = useState(0);
  useEffect(() => subscribeLive(() => setTick((tick) => tick + 1)), []);
  return liveState();
}

/**
 * GET `path` with `options` (none while the path is undefined), again whenever one of `parts` changes, and every
 * `refreshMs` when given (what changes without the live parts saying so, like a running task's output).
 */
export function useApi<P extends ApiPath<'get'>>(
  path: P | undefined,
  options: ApiOptions<P, 'get'>,
  parts: LivePart | readonly LivePart[],
  refreshMs?: number,
): Resource<ApiAnswer<P, 'get'>> {
  type T = ApiAnswer<P, 'get'>;
  // What is read: the path and its parameters (a new object each render, the same read while they are equal).
  const key = path === undefined ? undefined : JSON.stringify([path, options]);
  // A view keeps the same parts for its life, so the hooks below run in the same order each time.
  const version = (typeof parts === 'string' ? [parts] : parts).map(useLiveVersion).join('.');
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (refreshMs === undefined || key === undefined) return;
    const timer = setInterval(() => setTick((count) => count + 1), refreshMs);
    return () => clearInterval(timer);
  }, [key, refreshMs]);
  const [resource, setResource] = useState<Resource<T>>({ data: undefined, error: undefined, loading: key !== undefined });
  const [shownKey, setShownKey] = useState(key);
  if (shownKey !== key) {
    setShownKey(key);
    setResource({ data: undefined, error: undefined, loading: key !== undefined });
  }
  useEffect(() => {
    if (path === undefined) return;
    let current = true;
    // The options are this path's (the signature says so); the call's rest parameter cannot see that through P.
    const read = api.get as (path: P, options: ApiOptions<P, 'get'>) => Promise<T>;
    read(path, options).then(
      (data) => current && setResource({ data, error: undefined, loading: false }),
      (error: unknown) =>
        current &&
        setResource((before) => ({ data: before.data, error: error instanceof ApiError ? error : new ApiError(0, 'FAULT', String(error)), loading: false })),
    );
    return () => {
      current = false;
    };
  }, [key, version, tick]);
  return resource;
}
