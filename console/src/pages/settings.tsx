// For admins: the relay's settings, and its users: add one (their token is shown once) or remove one. A member who
// comes here is told it is for admins (parts/admins-only.tsx); the user API refuses their changes either way.
import { useState } from 'preact/hooks';
import { del, patch, post, seg } from '../api.ts';
import { ErrorNote } from '../parts/error-note.tsx';
import { when } from '../parts/format.ts';
import { useAction } from '../parts/use-action.ts';
import { useApi } from '../use-api.ts';

interface Settings {
  agentSessionsEnabled: boolean;
  maxWaitSeconds: number;
  maxTurnMinutes: number;
  taskQuietMinutes: number;
}

const NUMBERS: [keyof Settings & string, string, string][] = [
  ['maxWaitSeconds', 'max_wait_seconds', 'Longest wait per tool call (seconds)'],
  ['maxTurnMinutes', 'max_turn_minutes', 'Longest turn (minutes)'],
  ['taskQuietMinutes', 'task_quiet_minutes', 'A task is quiet after (minutes without output)'],
];

export function SettingsPage({ me }: { me: string }) {
  const settings = useApi<{ settings: Settings }>('/api/v1/settings', 'sessions');
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
            const body: Record<string, unknown> = { agent_sessions_enabled: form.get('agent_sessions_enabled') === 'on' };
            for (const [, field] of NUMBERS) body[field] = Number(form.get(field));
            void action.run(() => patch('/api/v1/settings', body));
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

interface User {
  id: string;
  name: string;
  role: 'admin' | 'member';
  createdAt: string;
}

function Users({ me }: { me: string }) {
  const users = useApi<{ users: User[] }>('/api/v1/users', 'sessions');
  const action = useAction();
  const [name, setName] = useState('');
  const [role, setRole] = useState('member');
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
                  <button type="button" disabled={action.busy} onClick={() => confirm(`Remove ${user.name}? Their tokens stop working and their sessions are archived.`) && action.run(() => del(`/api/v1/users/${seg(user.id)}`))}>
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
            const created = await post<{ user: { name: string }; token: string }>('/api/v1/users', { name: name.trim(), role });
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
          <select value={role} onChange={(event) => setRole(event.currentTarget.value)}>
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
