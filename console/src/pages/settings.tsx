// For admins: the relay's settings, and its users: add one (their token is shown once) or remove one. A member who
// comes here is told it is for admins (parts/admins-only.tsx); the user API refuses their changes either way.
import { useState } from 'preact/hooks';
import type { ApiBody, Schemas } from '@relay/user-api';
import { api } from '../api.ts';
import { ErrorNote } from '../parts/error-note.tsx';
import { when } from '../parts/format.ts';
import { useAction } from '../parts/use-action.ts';
import { useApi } from '../use-api.ts';

type SettingsChange = ApiBody<'/api/v1/settings', 'patch'>;

const NUMBERS: [keyof Schemas['RelaySettings'], Exclude<keyof SettingsChange, 'agent_sessions_enabled'>, string][] = [
  ['maxWaitSeconds', 'max_wait_seconds', 'Longest wait per tool call (seconds)'],
  ['maxTurnMinutes', 'max_turn_minutes', 'Longest turn (minutes)'],
  ['taskQuietMinutes', 'task_quiet_minutes', 'A task is quiet after (minutes without output)'],
];

export function SettingsPage({ me }: { me: string }) {
  const settings = useApi('/api/v1/settings', {}, 'sessions');
  const action = useAction();
  const current = settings.data?.settings;
  return (
    <main id="main">
      <h1>Settings</h1>
      <ErrorNote error={settings.error} />
      <ErrorNote error={action.error} />
      {current ? (
        <form
          class="settings"
          aria-label="Relay settings"
          onSubmit={(event) => {
            event.preventDefault();
            const form = new FormData(event.currentTarget);
            const body: SettingsChange = { agent_sessions_enabled: form.get('agent_sessions_enabled') === 'on' };
            for (const [, field] of NUMBERS) body[field] = Number(form.get(field));
            void action.run(() => api.patch('/api/v1/settings', { body }));
          }}
        >
          <label class="check">
            <input type="checkbox" name="agent_sessions_enabled" defaultChecked={current.agentSessionsEnabled} />
            Agents may start and use sessions on this relay
          </label>
          {NUMBERS.map(([key, field, label]) => (
            <label key={field}>
              {label}
              <input type="number" name={field} min={1} step={1} defaultValue={String(current[key])} />
            </label>
          ))}
          <button type="submit" class="primary" disabled={action.busy}>
            Save
          </button>
        </form>
      ) : null}
      <Users me={me} />
    </main>
  );
}

function Users({ me }: { me: string }) {
  const users = useApi('/api/v1/users', {}, 'sessions');
  const action = useAction();
  const [name, setName] = useState('');
  const [role, setRole] = useState<Schemas['User']['role']>('member');
  const [made, setMade] = useState<{ name: string; token: string } | undefined>(undefined);
  return (
    <section aria-labelledby="users-head">
      <h2 id="users-head">Users</h2>
      <ErrorNote error={users.error} />
      <ErrorNote error={action.error} />
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Role</th>
            <th scope="col">Since</th>
            <th scope="col">
              <span class="visually-hidden">Remove</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {(users.data?.users ?? []).map((user) => (
            <tr key={user.id}>
              <td>{user.name}</td>
              <td>{user.role}</td>
              <td>{when(user.createdAt)}</td>
              <td>
                {user.id === me ? (
                  <span class="muted small">you</span>
                ) : (
                  <button
                    type="button"
                    disabled={action.busy}
                    onClick={() =>
                      confirm(`Remove ${user.name}? Their tokens stop working and their sessions are archived.`) &&
                      action.run(() => api.delete('/api/v1/users/{id}', { path: { id: user.id } }))
                    }
                  >
                    Remove
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form
        class="actions"
        aria-label="Add a user"
        onSubmit={(event) => {
          event.preventDefault();
          void action.run(async () => {
            const created = await api.post('/api/v1/users', { body: { name: name.trim(), role } });
            setMade({ name: created.user.name, token: created.token });
            setName('');
          });
        }}
      >
        <label class="grow">
          <span class="visually-hidden">New user's name</span>
          <input required placeholder="New user's name" value={name} onInput={(event) => setName(event.currentTarget.value)} />
        </label>
        <label>
          <span class="visually-hidden">Role</span>
          <select value={role} onChange={(event) => setRole(event.currentTarget.value as Schemas['User']['role'])}>
            <option value="member">member</option>
            <option value="admin">admin</option>
          </select>
        </label>
        <button type="submit" disabled={action.busy || name.trim() === ''}>
          Add user
        </button>
      </form>
      {made ? (
        <p class="code-shown" role="status">
          {made.name}'s token, shown this once: <code>{made.token}</code>
        </p>
      ) : null}
    </section>
  );
}
