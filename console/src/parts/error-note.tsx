import type { ApiError } from '../api.ts';

/** A refusal or fault, said in the relay's words with its code. */
export function ErrorNote({ error }: { error: ApiError | undefined }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {error.message} {error.code && error.code !== 'OFFLINE' ? <code>{error.code}</code> : null}
    </p>
  );
}
