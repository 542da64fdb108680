// The user's side of sessions through the real `relay` CLI against a real relay: a session named by the start of
// its id or its exact title (an ambiguous name is refused, exit 1, with the candidates), renamed, moved into a
// group, its turn stopped, archived and unarchived (listed again), `relay usage`, a long message cut at 8,000
// characters in a read and read whole with --message, and a wrong command line answered with exit code 2.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRelayCli } from '../harness/relay-cli.ts';
import type { RelayClient } from '../harness/relay.ts';
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

  it('shows the usage report as an object, and answers a wrong command line with exit code 2', async () => {
    const usage = await json('usage');
    expect(Array.isArray(usage.providers)).toBe(true);
    expect(typeof usage.claudeUsageLimitPaused).toBe('boolean');

    const wrong = await cli('session', 'rename');
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^relay: relay session rename needs a session and the new title/);
  });
});
