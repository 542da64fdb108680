// The console's frame: who is signed in, the relay's name, the navigation with the Inbox's live count, the page
// for the address, and sign out. Live updates follow the conversation on screen.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, onSignedOut, signIn, signOut } from './api.ts';
import { startLive, stopLive } from './live.ts';
import { AdminsOnly } from './parts/admins-only.tsx';
import { AlarmIcon } from './parts/alarm-icon.tsx';
import { ErrorNote } from './parts/error-note.tsx';
import { setRelayName, useTitle } from './parts/use-title.ts';
import { Consent } from './pages/consent.tsx';
import { Conversation } from './pages/conversation.tsx';
import { Inbox } from './pages/inbox.tsx';
import { CardPage } from './pages/card.tsx';
import { Relays } from './pages/relays.tsx';
import { Schedules } from './pages/schedules.tsx';
import { Sessions } from './pages/sessions.tsx';
import { SettingsPage } from './pages/settings.tsx';
import { NotificationsEntry } from './pages/notifications-entry.tsx';
import { SignIn } from './pages/sign-in.tsx';
import { Usage } from './pages/usage.tsx';
import { linkTo, navigate, useRoute, type Route } from './router.ts';
import type { Schemas } from '@relay/user-api';
import { useLive } from './use-api.ts';

type Who =
  | { kind: 'checking' }
  | { kind: 'signed-out' }
  | { kind: 'signed-in'; me: Schemas['Me']['user']; relay: Schemas['RelayInfo'] }
  | { kind: 'trouble'; error: ApiError };

export function App() {
  const route = useRoute();
  const [who, setWho] = useState<Who>({ kind: 'checking' });
  const [linkError, setLinkError] = useState<ApiError | undefined>(undefined);

  const check = async () => {
    try {
      const [me, relay] = await Promise.all([api.get('/api/v1/me'), api.get('/api/v1/relay')]);
      setRelayName(relay.name);
      setWho({ kind: 'signed-in', me: me.user, relay });
    } catch (error) {
      if (error instanceof ApiError && (error.status === 401 || error.status === 403)) setWho({ kind: 'signed-out' });
      else setWho({ kind: 'trouble', error: error instanceof ApiError ? error : new ApiError(0, 'FAULT', String(error)) });
    }
  };
  useEffect(() => {
    void signInFromLink().then((error) => {
      setLinkError(error);
      return check();
    });
    return onSignedOut(() => setWho({ kind: 'signed-out' }));
  }, []);

  const watch = route.page === 'conversation' ? route.id : undefined;
  useEffect(() => {
    if (who.kind === 'signed-in') startLive(watch);
    else stopLive();
  }, [who.kind, watch]);

  if (who.kind === 'checking') return <p class="muted center">Loading…</p>;
  if (who.kind === 'trouble') {
    return (
      <main id="main" class="sign-in">
        <h1>The relay does not answer</h1>
        <ErrorNote error={who.error} />
        <button type="button" onClick={() => void check()}>
          Try again
        </button>
      </main>
    );
  }
  if (who.kind === 'signed-out') {
    return (
      <SignIn
        linkError={linkError}
        onSignedIn={() => {
          if (route.page === 'sign-in') navigate('/');
          void check();
        }}
      />
    );
  }
  return (
    <>
      <a class="skip" href="#main">
        Skip to the page
      </a>
      <Header route={route} name={who.relay.name} me={who.me} onSignedOut={() => setWho({ kind: 'signed-out' })} />
      <Page route={route} admin={who.me.role === 'admin'} me={who.me} />
    </>
  );
}

/**
 * A sign-in link: the one-time link `relay up` prints, `…/#link=rly_l_…`, or one with a user token, `…/#token=rly_u_…`.
 * The secret rides in the fragment, which browsers never send to a server or put in a Referer. The page takes it out
 * of the address at once, then signs in with it; answers why that was refused, if it was.
 */
async function signInFromLink(): Promise<ApiError | undefined> {
  const given = /^#(link|token)=([^&]+)/.exec(location.hash);
  if (given === null) return undefined;
  history.replaceState(null, '', location.pathname + location.search);
  const [, kind, value] = given as unknown as [string, 'link' | 'token', string];
  try {
    await signIn(kind === 'link' ? { link: decodeURIComponent(value) } : { token: decodeURIComponent(value) });
    return undefined;
  } catch (error) {
    return error instanceof ApiError ? error : new ApiError(0, 'FAULT', String(error));
  }
}

/** Each page's name in the tab's title; a conversation names itself by its session's title. */
const PAGE_TITLES: Record<Route['page'], string | undefined> = {
  sessions: 'Sessions',
  conversation: undefined,
  inbox: 'Inbox',
  card: 'Card',
  schedules: 'Schedules',
  relays: 'Paired relays',
  settings: 'Settings',
  usage: 'Usage',
  notifications: 'Notifications',
  'sign-in': 'Sign in',
  consent: 'Sign in a client',
};

function Page({ route, admin, me }: { route: Route; admin: boolean; me: Schemas['Me']['user'] }) {
  useTitle(PAGE_TITLES[route.page]);
  switch (route.page) {
    case 'conversation':
      return <Conversation id={route.id} />;
    case 'inbox':
      return <Inbox />;
    case 'card':
      return <CardPage id={route.id} />;
    case 'schedules':
      return <Schedules />;
    case 'relays':
      return <Relays admin={admin} />;
    case 'settings':
      return admin ? <SettingsPage me={me.id} /> : <AdminsOnly title="Settings" what="The relay's settings and its users" />;
    case 'usage':
      return <Usage />;
    case 'notifications':
      return <NotificationsEntry />;
    case 'consent':
      return <Consent me={me} />;
    default:
      return <Sessions />;
  }
}

function Header({ route, name, me, onSignedOut }: { route: Route; name: string; me: Schemas['Me']['user']; onSignedOut: () => void }) {
  const live = useLive();
  const current = (page: Route['page']) =>
    route.page === page || (page === 'sessions' && route.page === 'conversation') || (page === 'inbox' && route.page === 'card') ? 'page' : undefined;
  return (
    <header class="top">
      <a class="brand" {...linkTo('/')}>
        relay <span class="muted">{name}</span>
      </a>
      <nav aria-label="Console">
        <a {...linkTo('/')} aria-current={current('sessions')}>
          Sessions
        </a>
        <a {...linkTo('/inbox')} aria-current={current('inbox')}>
          Inbox
          {live.inboxCount ? (
            <span class="count" aria-label={`${live.inboxCount} waiting`} data-inbox-count={live.inboxCount}>
              {live.inboxCount}
            </span>
          ) : null}
        </a>
        <a {...linkTo('/schedules')} aria-current={current('schedules')}>
          <AlarmIcon /> Schedules
        </a>
        <a {...linkTo('/relays')} aria-current={current('relays')}>
          Paired relays
        </a>
        <a {...linkTo('/usage')} aria-current={current('usage')}>
          Usage
        </a>
        <a {...linkTo('/notifications')} aria-current={current('notifications')}>
          Notifications
        </a>
        {me.role === 'admin' ? (
          <a {...linkTo('/settings')} aria-current={current('settings')}>
            Settings
          </a>
        ) : null}
      </nav>
      {live.notice ? (
        <p class="error" role="status">
          {live.notice}
        </p>
      ) : null}
      <div class="me">
        <span
          class={live.connected ? 'dot on' : 'dot'}
          title={live.connected ? 'live' : 'reconnecting'}
          aria-label={live.connected ? 'Live updates on' : 'Reconnecting'}
          role="status"
        />
        <span>
          {me.name || me.id} <span class="muted">({me.role})</span>
        </span>
        <button
          type="button"
          onClick={async () => {
            await signOut().catch(() => undefined);
            stopLive();
            onSignedOut();
          }}
        >
          Sign out
        </button>
      </div>
    </header>
  );
}
