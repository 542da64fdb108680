// Reading the user API in a view: the answer, the refusal, and a fresh read whenever the live part it depends on
// changes (live.ts). The last good answer stays on screen while a new read is under way.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, get } from './api.ts';
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
 * GET `path` (none while it is undefined), again whenever one of `parts` changes, and every `refreshMs` when given
 * (what changes without the live parts saying so, like a running task's output).
 */
export function useApi<T>(path: string | undefined, parts: LivePart | readonly LivePart[], refreshMs?: number): Resource<T> {
  // A view keeps the same parts for its life, so the hooks below run in the same order each time.
  const version = (typeof parts === 'string' ? [parts] : parts).map(useLiveVersion).join('.');
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (refreshMs === undefined || path === undefined) return;
    const timer = setInterval(() => setTick((count) => count + 1), refreshMs);
    return () => clearInterval(timer);
  }, [path, refreshMs]);
  const [resource, setResource] = useState<Resource<T>>({ data: undefined, error: undefined, loading: path !== undefined });
  const [shownPath, setShownPath] = useState(path);
  if (shownPath !== path) {
    setShownPath(path);
    setResource({ data: undefined, error: undefined, loading: path !== undefined });
  }
  useEffect(() => {
    if (path === undefined) return;
    let current = true;
    get<T>(path).then(
      (data) => current && setResource({ data, error: undefined, loading: false }),
      (error: unknown) =>
        current && setResource((before) => ({ data: before.data, error: error instanceof ApiError ? error : new ApiError(0, 'FAULT', String(error)), loading: false })),
    );
    return () => {
      current = false;
    };
  }, [path, version, tick]);
  return resource;
}
