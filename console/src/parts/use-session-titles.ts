// The titles of the sessions a list names (the Inbox's cards and asks, a card's page), read one session at a time:
// the sessions listing is a page of the most recently active, so a card's session may not be on it, and reading
// every session only to name a few would grow with the user's sessions.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';

/**
 * The title of each of `ids` once read (the last line of each session's read is all it costs); an id whose read
 * failed, or is under way, has none, and its item names the session by its id instead. A session read once keeps its
 * title while the view shows.
 */
export function useSessionTitles(ids: readonly string[]): ReadonlyMap<string, string> {
  const [titles, setTitles] = useState<ReadonlyMap<string, string>>(new Map());
  const wanted = [...new Set(ids)].sort().join('\n');
  useEffect(() => {
    const missing = wanted === '' ? [] : wanted.split('\n').filter((id) => !titles.has(id));
    if (missing.length === 0) return;
    let current = true;
    void Promise.all(
      missing.map((id) =>
        api.get('/api/v1/sessions/{id}', { path: { id }, query: { last: 1 } }).then(
          (read) => [id, read.session.title] as const,
          () => undefined,
        ),
      ),
    ).then((read) => {
      if (!current) return;
      const found = read.filter((entry) => entry !== undefined);
      if (found.length > 0) setTitles((before) => new Map([...before, ...found]));
    });
    return () => {
      current = false;
    };
  }, [wanted]);
  return titles;
}
