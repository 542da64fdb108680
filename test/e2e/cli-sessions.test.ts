// The user's side of sessions through the real `relay` CLI against a real relay: a session named by the start of
// its id or its exact title (an ambiguous name is refused, exit 1, with the candidates), renamed, moved into a
// group, its turn stopped, archived and unarchived (listed again), `relay usage`, a long message cut at 8,000
// characters in a read and read whole with --message, a page of 100 sessions with the line that says how to read the
// rest (--page, --all), and a wrong command line answered with exit code 2.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRelayCli } from '../harness/relay-cli.ts';
import { callUserApi, type RelayClient } from '../harness/relay.ts';
import { sharedRelay } from '../harness/shared-relay.ts';

let relay: RelayClient;

const cli = (...args: string[]) => runRelayCli(relay, relay.userToken, ...args);
const json = async (...args: string[]) => {
  const result = await cli(...args, '--json');
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Record<string, any>;
};

beforeAll(async () => {
  relay = await sharedRelay();
});

afterAll(async () => {
  await relay?.stop();
});

describe('relay session … as the user', () => {
  it('renames, regroups, stops, archives and unarchives a session named by the start of its id or its title', async () => {
    const created = await json('session', 'create', '--external', '--title', 'Review');
    const id = created.session.id as string;
    const prefix = id.slice(0, 8);

    const renamed = await cli('session', 'rename', prefix, 'Release', 'notes');
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(renamed.stdout).toBe(`Session ${id} is now "Release notes".\n`);

    const grouped = await json('session', 'group', 'Release notes', 'Release 2.4');
    expect(grouped.session).toMatchObject({ id, title: 'Release notes', group: { name: 'Release 2.4' } });
    expect(grouped.changed).toEqual(['group']);

    expect(await json('session', 'stop', prefix)).toEqual({ session: id, stopRequested: false });

    expect((await json('session', 'archive', prefix)).session).toMatchObject({ id, archived: true });
    expect((await json('sessions')).sessions.map((session: { id: string }) => session.id)).not.toContain(id);
    expect((await json('sessions', '--scope', 'archived')).sessions.map((session: { id: string }) => session.id)).toContain(id);

    const unarchived = await json('session', 'unarchive', prefix);
    expect(unarchived.session.id).toBe(id);
    expect(unarchived.session.archived).toBeUndefined();
    expect((await json('sessions')).sessions.map((session: { id: string }) => session.id)).toContain(id);
  });

  it('refuses a title two sessions share with exit code 1, naming both', async () => {
    const first = await json('session', 'create', '--external', '--title', 'Twin');
    const second = await json('session', 'create', '--external', '--title', 'Twin');
    const refused = await cli('session', 'show', 'Twin');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('"Twin" could be 2 sessions');
    expect(refused.stderr).toContain(first.session.id);
    expect(refused.stderr).toContain(second.session.id);
    expect((await json('session', 'show', first.session.id)).session.id).toBe(first.session.id);
  });

  it('cuts a long message at 8,000 characters in a read, and shows it whole with --message', async () => {
    // A hosted session whose first prompt is long: the script agent's reply does not matter here.
    const text = `reply ${'long prompt '.repeat(2000)}end`;
    const created = await relay.api('POST', '/api/v1/sessions', { provider: 'script', title: 'Long', text });
    expect(created.status).toBe(201);
    const { session, message_id: messageId } = created.body as { session: { id: string }; message_id: string };
    const id = session.id;

    const read = await json('session', 'show', id.slice(0, 8));
    const message = read.messages.find((candidate: { id: string }) => candidate.id === messageId);
    expect(message).toMatchObject({ truncated: true, length: text.length });
    expect(message.text).toBe(text.slice(0, 8000));
    expect(read.note).toContain('longer than 8,000 characters');

    const whole = await cli('session', 'show', id.slice(0, 8), '--message', messageId);
    expect(whole.code, whole.stderr).toBe(0);
    expect(whole.stdout).toBe(`${text}\n`);
  });

  it('lists the first 100 sessions with a line saying how many more and how, reads a later page with --page and every one with --all', async () => {
    // A user of their own, so the count is theirs alone; external sessions cost no turn.
    const added = await relay.api('POST', '/api/v1/users', { name: 'Many', role: 'member' });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const token = added.body.token as string;
    // One after another: the listing's order (the most recently active first) is the order they were made in.
    const made: string[] = [];
    for (let n = 1; n <= 103; n++) {
      const answer = await callUserApi(relay.gatewayUrl, token, 'POST', '/api/v1/sessions', { external: true, title: `Many ${n}` });
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      made.push(answer.body.session.id as string);
    }
    const many = (...args: string[]) => runRelayCli(relay, token, ...args);

    const first = await many('sessions');
    expect(first.code, first.stderr).toBe(0);
    const lines = first.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1 + 100 + 2);
    expect(lines.at(-1)).toBe('Sessions 1–100 of 103 (page 1 of 2), the most recently active first. 3 more: relay sessions --page 2, or --all for every one.');

    const second = JSON.parse((await many('sessions', '--page', '2', '--json')).stdout) as Record<string, any>;
    expect(second).toMatchObject({ sessionsTotal: 103, page: 2, pages: 2 });
    expect(second).not.toHaveProperty('nextPage');
    // The most recently active first: the three made first are the last page.
    expect(second.sessions.map((session: { title: string }) => session.title).sort()).toEqual(['Many 1', 'Many 2', 'Many 3']);

    const all = JSON.parse((await many('sessions', '--all', '--json')).stdout) as { sessions: { id: string }[]; sessionsTotal: number };
    expect(all.sessionsTotal).toBe(103);
    expect(all.sessions.map((session) => session.id).sort()).toEqual([...made].sort());

    // A session past the first page is still found by its title.
    const shown = await many('session', 'show', 'Many 1', '--json');
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout).session.id).toBe(made[0]);
  });

  it('shows the usage report as an object, and answers a wrong command line with exit code 2', async () => {
    const usage = await json('usage');
    expect(Array.isArray(usage.providers)).toBe(true);
    expect(typeof usage.claudeUsageLimitPaused).toBe('boolean');

    const wrong = await cli('session', 'rename');
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^relay: relay session rename needs a session and the new title/);
  });
});
