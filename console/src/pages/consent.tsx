// Letting an MCP client sign in (OAuth): the relay's /oauth/authorize sends the person here with the client's request
// in the address. The page names the client as its metadata names itself, and the person; allowing makes an external
// session of its own for the client, titled as the person edits it, and sends the browser back to the client.
import { useState } from 'preact/hooks';
import type { Schemas } from '@relay/user-api';
import { ApiError, api } from '../api.ts';
import { ErrorNote } from '../parts/error-note.tsx';
import { useApi } from '../use-api.ts';

export function Consent({ me }: { me: Schemas['Me']['user'] }) {
  const request = Object.fromEntries(new URLSearchParams(location.search));
  const { data, error } = useApi('/api/v1/oauth/authorization', { query: request }, []);
  const [title, setTitle] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<ApiError | undefined>(undefined);

  const decide = async (allow: boolean) => {
    setBusy(true);
    setRefusal(undefined);
    try {
      const { redirectTo } = await api.post('/api/v1/oauth/authorization', { body: { request, allow, title: title ?? data?.client.name ?? '' } });
      location.assign(redirectTo);
    } catch (caught) {
      setRefusal(caught instanceof ApiError ? caught : new ApiError(0, 'FAULT', String(caught)));
      setBusy(false);
    }
  };

  if (error) {
    return (
      <main id="main" class="sign-in">
        <h1>This sign-in cannot go ahead</h1>
        <ErrorNote error={error} />
      </main>
    );
  }
  if (!data) return <p class="muted center">Loading…</p>;
  const { client } = data;
  return (
    <main id="main" class="sign-in">
      <h1>Let {client.name} use this relay?</h1>
      <p>
        <strong>{client.name}</strong>
        {client.uri ? (
          <>
            {' '}
            (
            <a href={client.uri} rel="noreferrer noopener" target="_blank">
              {client.uri}
            </a>
            )
          </>
        ) : null}{' '}
        asks to act on this relay as <strong>{me.name || me.id}</strong>, through an external session of its own: it may call relay_tool as that session until
        you archive it.
      </p>
      <p class="muted">
        It will send you back to <code>{data.redirectUri}</code>.{' '}
        {client.hasMetadataDocument ? (
          <>
            It is known by <code>{client.id}</code>.
          </>
        ) : (
          'It registered itself with this relay.'
        )}
      </p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void decide(true);
        }}
      >
        <label for="session-title">Name of its session</label>
        <input id="session-title" name="title" maxLength={200} value={title ?? client.name} onInput={(event) => setTitle(event.currentTarget.value)} />
        <button type="submit" class="primary" disabled={busy}>
          Allow
        </button>
        <button type="button" disabled={busy} onClick={() => void decide(false)}>
          Deny
        </button>
      </form>
      <ErrorNote error={refusal} />
    </main>
  );
}
