// The sessions list: title, provider and model, state and relay mode, group, the watched badge and "watching N",
// last activity; active, archived or all, a page of 100 at a time (the most recently active first) with the total and
// the previous and next pages; search by title on the page shown; a new session with its first prompt.
import { useState } from 'preact/hooks';
import type { Schemas } from '@relay/user-api';
import { api, seg } from '../api.ts';
import { ErrorNote } from '../parts/error-note.tsx';
import { ago, statusLabel, statusName, watchingLabel } from '../parts/format.ts';
import { useAction } from '../parts/use-action.ts';
import { linkTo, navigate } from '../router.ts';
import { useApi } from '../use-api.ts';

const SCOPES = ['active', 'archived', 'all'] as const;

/** How many sessions a page lists: the most GET /api/v1/sessions answers. */
const PAGE_SIZE = 100;

export function Sessions() {
  const [scope, setScope] = useState<(typeof SCOPES)[number]>('active');
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const list = useApi('/api/v1/sessions', { query: { scope, page, limit: PAGE_SIZE } }, 'sessions');
  const needle = search.trim().toLowerCase();
  const shown = (list.data?.sessions ?? []).filter((session) => needle === '' || session.title.toLowerCase().includes(needle));
  return (
    <main id="main">
      <div class="page-head">
        <h1>Sessions</h1>
        <NewSession />
      </div>
      <div class="toolbar">
        <div role="group" aria-label="Which sessions" class="segmented">
          {SCOPES.map((value) => (
            <button
              type="button"
              key={value}
              aria-pressed={scope === value}
              onClick={() => {
                setScope(value);
                setPage(1);
              }}
            >
              {value[0]!.toUpperCase() + value.slice(1)}
            </button>
          ))}
        </div>
        <label class="search">
          <span class="visually-hidden">Search this page by title</span>
          <input type="search" placeholder="Search this page by title" value={search} onInput={(event) => setSearch(event.currentTarget.value)} />
        </label>
      </div>
      <ErrorNote error={list.error} />
      {list.loading && !list.data ? <p class="muted">Loading…</p> : null}
      {list.data && shown.length === 0 ? (
        <p class="muted">
          {needle
            ? 'No session on this page has that in its title.'
            : list.data.sessionsTotal === 0
              ? `No ${scope === 'all' ? '' : scope + ' '}sessions yet.`
              : 'No sessions on this page.'}
        </p>
      ) : null}
      {shown.length > 0 ? (
        <table class="sessions">
          <thead>
            <tr>
              <th scope="col">Title</th>
              <th scope="col">Provider · model</th>
              <th scope="col">State</th>
              <th scope="col">Group</th>
              <th scope="col">Last activity</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((session) => (
              <tr key={session.id} data-session={session.id}>
                <td>
                  <a {...linkTo(`/sessions/${seg(session.id)}`)}>{session.title || session.id.slice(0, 8)}</a>
                  {session.startedBy ? <div class="muted small">via agent · “{session.startedBy.title}”</div> : null}
                  <div class="tags">
                    {session.archived ? <span class="tag">archived</span> : null}
                    {session.watched ? <span class="tag watched">watched</span> : null}
                    {session.watching !== undefined ? <span class="tag watching">{watchingLabel(session.watching)}</span> : null}
                  </div>
                </td>
                <td>
                  {session.provider}
                  {session.model ? ` · ${session.model}` : ''}
                </td>
                <td>
                  <span class={`state state-${statusName(session)}`} data-status={statusName(session)}>
                    {statusLabel(session)}
                  </span>
                  {session.mode !== 'agent' ? <span class="tag mode">{session.mode} mode</span> : null}
                </td>
                <td>{session.group ? `${session.group.name} (${session.group.role})` : '—'}</td>
                <td>{ago(session.lastActivityAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {list.data ? <Pager listed={list.data} onPage={setPage} /> : null}
    </main>
  );
}

/** Which sessions the page shows of how many, and the previous and next pages when there are any. */
function Pager({ listed, onPage }: { listed: Schemas['SessionPage']; onPage: (page: number) => void }) {
  const { page, pages, sessionsTotal, sessions, nextPage } = listed;
  if (pages === 1 && page === 1) return null;
  const first = (page - 1) * PAGE_SIZE + 1;
  return (
    <nav class="pager" aria-label="Pages of sessions">
      <span role="status">
        {sessions.length > 0 ? `Sessions ${first}–${first + sessions.length - 1} of ${sessionsTotal}` : `No sessions on page ${page} of ${pages}`} · page {page}{' '}
        of {pages}
      </span>
      <button type="button" disabled={page === 1} onClick={() => onPage(Math.min(page - 1, pages))}>
        Previous
      </button>
      <button type="button" disabled={nextPage === undefined} onClick={() => nextPage !== undefined && onPage(nextPage)}>
        Next
      </button>
    </nav>
  );
}

function NewSession() {
  const action = useAction();
  const [open, setOpen] = useState(false);
  const [fields, setFields] = useState({ title: '', provider: '', model: '', effort: '', cwd: '', mode: '', text: '' });
  const set = (name: keyof typeof fields) => (event: { currentTarget: { value: string } }) => setFields({ ...fields, [name]: event.currentTarget.value });
  if (!open) {
    return (
      <button type="button" class="primary" onClick={() => setOpen(true)}>
        New session
      </button>
    );
  }
  return (
    <form
      class="new-session"
      aria-label="New session"
      onSubmit={async (event) => {
        event.preventDefault();
        const body = { ...Object.fromEntries(Object.entries(fields).filter(([, value]) => value.trim() !== '')), text: fields.text };
        let id = '';
        const ok = await action.run(async () => {
          id = (await api.post('/api/v1/sessions', { body })).session.id;
        });
        if (ok) navigate(`/sessions/${seg(id)}`);
      }}
    >
      <label>
        Title <input value={fields.title} onInput={set('title')} />
      </label>
      <label>
        Provider <input value={fields.provider} onInput={set('provider')} placeholder="the relay's default" />
      </label>
      <label>
        Model <input value={fields.model} onInput={set('model')} placeholder="the provider's default" />
      </label>
      <label>
        Effort <input value={fields.effort} onInput={set('effort')} placeholder="default" />
      </label>
      <label>
        Folder <input value={fields.cwd} onInput={set('cwd')} placeholder="the relay's default" />
      </label>
      <label>
        Mode
        <select value={fields.mode} onChange={set('mode')}>
          <option value="">default</option>
          <option value="agent">agent</option>
          <option value="ask">ask</option>
          <option value="plan">plan</option>
        </select>
      </label>
      <label class="wide">
        First prompt <textarea required rows={3} value={fields.text} onInput={set('text')} />
      </label>
      <div class="actions">
        <button type="submit" class="primary" disabled={action.busy || fields.text.trim() === ''}>
          Start
        </button>
        <button type="button" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
      <ErrorNote error={action.error} />
    </form>
  );
}
