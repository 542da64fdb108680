// Sign in with your user token (kept in .relay/credentials.json by `relay up`, made by `relay users token`), or by the
// one-time link `relay up` prints (app.tsx); the gateway keeps the token in an HttpOnly cookie, so the page never holds it.
import { useState } from 'preact/hooks';
import { ApiError, signIn } from '../api.ts';
import { ErrorNote } from '../parts/error-note.tsx';
import { useTitle } from '../parts/use-title.ts';

/** `linkError`: why the sign-in link this page was opened with was refused (used already, expired). */
export function SignIn({ onSignedIn, linkError }: { onSignedIn: () => void; linkError?: ApiError | undefined }) {
  useTitle('Sign in');
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>(linkError);
  return (
    <main class="sign-in" id="main">
      <h1>Sign in to this relay</h1>
      <p>
        Paste your user token: on the machine that runs <code>relay up</code> it is <code>userToken</code> in <code>.relay/credentials.json</code>; an admin can
        make you a new one with <code>relay users token NAME</code>. Or open the one-time link <code>relay up</code> prints under <em>Console</em>.
      </p>
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          setBusy(true);
          setError(undefined);
          try {
            await signIn({ token: token.trim() });
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
        <input
          id="token"
          name="token"
          type="password"
          autocomplete="current-password"
          required
          value={token}
          onInput={(event) => setToken(event.currentTarget.value)}
        />
        <button type="submit" class="primary" disabled={busy || token.trim() === ''}>
          Sign in
        </button>
      </form>
      <ErrorNote error={error} />
    </main>
  );
}
