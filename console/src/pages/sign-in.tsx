// Sign in with your user token (kept in .relay/credentials.json by `relay up`, made by `relay users token`); the gateway keeps it in
// an HttpOnly cookie, so the page never holds it.
import { useState } from 'preact/hooks';
import { ApiError, post } from '../api.ts';
import { ErrorNote } from '../parts/error-note.tsx';

export function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  return (
    <main class="sign-in" id="main">
      <h1>Sign in to this relay</h1>
      <p>
        Paste your user token: on the machine that runs <code>relay up</code> it is <code>userToken</code> in{' '}
        <code>.relay/credentials.json</code>; an admin can make you a new one with <code>relay users token NAME</code>.
      </p>
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          setBusy(true);
          setError(undefined);
          try {
            await post('/console/v1/sign-in', { token: token.trim() });
            setToken('');
            onSignedIn();
          } catch (caught) {
            setError(caught instanceof ApiError ? caught : new ApiError(0, 'FAULT', String(caught)));
          } finally {
            setBusy(false);
          }
        }}
      >
        <label for="token">User token</label>
        <input id="token" name="token" type="password" autocomplete="current-password" required value={token} onInput={(event) => setToken(event.currentTarget.value)} />
        <button type="submit" class="primary" disabled={busy || token.trim() === ''}>
          Sign in
        </button>
      </form>
      <ErrorNote error={error} />
    </main>
  );
}
