// The console's addresses, routed in the browser with the History API. The gateway answers the page at each of
// them, so a link (relay_tool's openUrl: /sessions/<id>) opens the right view directly.
import { useEffect, useState } from 'preact/hooks';

export type Route =
  | { page: 'sessions' }
  | { page: 'conversation'; id: string }
  | { page: 'inbox' }
  | { page: 'card'; id: string }
  | { page: 'schedules' }
  | { page: 'relays' }
  | { page: 'settings' }
  | { page: 'usage' }
  | { page: 'notifications' }
  | { page: 'sign-in' }
  | { page: 'consent' };

export function routeOf(pathname: string): Route {
  const conversation = /^\/sessions\/([^/]+)\/?$/.exec(pathname);
  if (conversation) return { page: 'conversation', id: decodeURIComponent(conversation[1] ?? '') };
  if (pathname === '/inbox') return { page: 'inbox' };
  const card = /^\/cards\/([^/]+)\/?$/.exec(pathname);
  if (card) return { page: 'card', id: decodeURIComponent(card[1] ?? '') };
  if (pathname === '/schedules') return { page: 'schedules' };
  if (pathname === '/relays') return { page: 'relays' };
  if (pathname === '/settings') return { page: 'settings' };
  if (pathname === '/usage') return { page: 'usage' };
  if (pathname === '/notifications') return { page: 'notifications' };
  if (pathname === '/sign-in') return { page: 'sign-in' };
  if (pathname === '/oauth/consent') return { page: 'consent' };
  return { page: 'sessions' };
}

const listeners = new Set<() => void>();

/** Goes to `path` without reloading the page. */
export function navigate(path: string): void {
  if (path === location.pathname + location.search) return;
  history.pushState(null, '', path);
  for (const listener of listeners) listener();
  window.scrollTo(0, 0);
}

/** The current route; re-renders on navigation and on Back/Forward. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => routeOf(location.pathname));
  useEffect(() => {
    const update = () => setRoute(routeOf(location.pathname));
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return route;
}

/** Props for an <a> that navigates in the page (a modified click still opens a new tab). */
export function linkTo(path: string) {
  return {
    href: path,
    onClick: (event: MouseEvent) => {
      if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      event.preventDefault();
      navigate(path);
    },
  };
}
