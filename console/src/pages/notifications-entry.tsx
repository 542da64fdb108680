// Settings → Notifications, loaded on first visit: its code (and the service worker it registers) is no part of the
// console's first load.
import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export function NotificationsEntry() {
  const [Page, setPage] = useState<ComponentType | undefined>(undefined);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    import('./notifications.tsx').then(
      (module) => setPage(() => module.default),
      () => setFailed(true),
    );
  }, []);
  if (Page) return <Page />;
  return (
    <main id="main">
      <h1>Notifications</h1>
      <p class="muted">{failed ? 'The page did not load; reload to try again.' : 'Loading…'}</p>
    </main>
  );
}
