import { useState } from 'preact/hooks';
import { ApiError } from '../api.ts';
import { refreshAll } from '../live.ts';

/** Runs a write: busy while it goes, its refusal kept to show, and everything read again once it is done. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  async function run(write: () => Promise<unknown>): Promise<boolean> {
    setBusy(true);
    setError(undefined);
    try {
      await write();
      refreshAll();
      return true;
    } catch (caught) {
      setError(caught instanceof ApiError ? caught : new ApiError(0, 'FAULT', String(caught)));
      return false;
    } finally {
      setBusy(false);
    }
  }
  return { busy, error, run };
}
