// Paired relays: make a pairing code, pair with a URL and code, set what each relay's agents may do, unpair;
// "Accept prompts from other relays' agents". Changing any of it is for admins; everyone sees it.
import { useState } from 'preact/hooks';
import type { Schemas } from '@relay/user-api';
import { api } from '../api.ts';
import { ErrorNote } from '../parts/error-note.tsx';
import { when } from '../parts/format.ts';
import { useAction } from '../parts/use-action.ts';
import { useApi } from '../use-api.ts';

const LEVELS: [Schemas['Pairing']['level'], string][] = [
  ['off', 'nothing'],
  ['read', 'read'],
  ['read_and_prompt', 'read and send prompts'],
  ['full', 'everything'],
];

export function Relays({ admin }: { admin: boolean }) {
  const pairings = useApi('/api/v1/pairings', {}, 'sessions');
  const settings = useApi('/api/v1/pairing-settings', {}, 'sessions');
  const action = useAction();
  const [code, setCode] = useState<Schemas['PairingCode'] | undefined>(undefined);
  const [pair, setPair] = useState({ url: '', code: '' });
  return (
    <main id="main">
      <h1>Paired relays</h1>
      <ErrorNote error={pairings.error} />
      <ErrorNote error={action.error} />
      {pairings.data && pairings.data.pairings.length === 0 ? <p class="muted">This relay is paired with no other relay.</p> : null}
      {(pairings.data?.pairings.length ?? 0) > 0 ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Relay</th>
              <th scope="col">Online</th>
              <th scope="col">Its agents may</th>
              <th scope="col">
                <span class="visually-hidden">Unpair</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {pairings.data!.pairings.map((relay) => (
              <tr key={relay.name}>
                <td>
                  <strong>{relay.name}</strong>
                  <div class="muted small">
                    {relay.url} · {relay.version || 'version unknown'}
                  </div>
                </td>
                <td>{relay.online ? 'online' : 'offline'}</td>
                <td>
                  <label>
                    <span class="visually-hidden">What {relay.name}'s agents may do</span>
                    <select
                      value={relay.level}
                      disabled={!admin || action.busy}
                      onChange={(event) =>
                        action.run(() =>
                          api.patch('/api/v1/pairings/{name}', {
                            path: { name: relay.name },
                            body: { level: event.currentTarget.value as Schemas['Pairing']['level'] },
                          }),
                        )
                      }
                    >
                      {LEVELS.map(([value, label]) => (
                        <option key={value} value={value}>
                          {label}
                        </option>
                      ))}
                    </select>
                  </label>
                </td>
                <td>
                  {admin ? (
                    <button
                      type="button"
                      disabled={action.busy}
                      onClick={() => action.run(() => api.delete('/api/v1/pairings/{name}', { path: { name: relay.name } }))}
                    >
                      Unpair
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {settings.data ? (
        <label class="check">
          <input
            type="checkbox"
            checked={settings.data.accept_prompts}
            disabled={!admin || action.busy}
            onChange={(event) => action.run(() => api.put('/api/v1/pairing-settings', { body: { accept_prompts: event.currentTarget.checked } }))}
          />
          Accept prompts from other relays' agents
        </label>
      ) : null}
      {admin ? (
        <div class="columns">
          <section aria-labelledby="code-head">
            <h2 id="code-head">Let another relay pair with this one</h2>
            <button
              type="button"
              class="primary"
              disabled={action.busy}
              onClick={() => action.run(async () => setCode(await api.post('/api/v1/pairing-codes')))}
            >
              Make a pairing code
            </button>
            {code ? (
              <p class="code-shown">
                Code <code data-pairing-code>{code.code}</code> for {code.url}, valid until {when(code.expiresAt)}.
              </p>
            ) : null}
          </section>
          <section aria-labelledby="pair-head">
            <h2 id="pair-head">Pair with another relay</h2>
            <form
              onSubmit={(event) => {
                event.preventDefault();
                void action.run(() => api.post('/api/v1/pairings', { body: pair })).then((ok) => ok && setPair({ url: '', code: '' }));
              }}
            >
              <label>
                Its URL <input required value={pair.url} onInput={(event) => setPair({ ...pair, url: event.currentTarget.value })} />
              </label>
              <label>
                Its code <input required value={pair.code} onInput={(event) => setPair({ ...pair, code: event.currentTarget.value })} />
              </label>
              <button type="submit" disabled={action.busy}>
                Pair
              </button>
            </form>
          </section>
        </div>
      ) : (
        <p class="muted">Only an admin of this relay can pair it or change what paired relays may do.</p>
      )}
    </main>
  );
}
