/**
 * Only the person decides (docs/security.md, Gates): every card that gates an action, tried as an attacker would by
 * every decision path there is, against two real relays. Hosted `script` agents and external MCP clients of the same
 * user and of another user answer the cards with "Allow"; another user decides them through the user API; a session
 * token reaches for the user API; an agent on a paired relay answers them through /relay/v1 and tries to change a
 * session there without this relay's person. Each refusal is checked by its effect — the file that must not appear,
 * the session, message or subscription that must not exist — and then the owner decides through the user API and
 * the effect appears, so the same checks would have seen a leak.
 */
import { access, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callUserApi, startRelay, type Relay } from '../harness/relay.ts';
import { callTool, RelayUser, toolStep, type Agent } from '../harness/relay-user.ts';
import { until } from '../harness/until.ts';

let a: Relay;
let b: Relay;
/** The gates' sessions' folder: this run's own, so a file found there was written by this run. */
let folder: string;
let owner: RelayUser;
let stranger: RelayUser;
/** Another external session of the owner: the agent that tries hardest. */
let sibling: Agent;
/** An external session of another user of the same relay. */
let outsider: Agent;
/** The owner's external session's token, which must not reach the user API. */
let siblingToken: string;

/** The gates, as the owner's sessions raise them: what each card would let happen. */
interface Gate {
  name: string;
  sessionId: string;
  messageId: string;
  cardId: string;
  /** Whether what the card gates has happened. */
  happened(): Promise<boolean>;
}
const gates: Gate[] = [];

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

async function sessionTitled(user: RelayUser, title: string): Promise<boolean> {
  const { body } = await user.api('GET', '/api/v1/sessions');
  return (body.sessions as { title: string }[]).some((session) => session.title === title);
}

/** A `script` session of the owner whose first step waits on a gating card; the gate once its card shows. */
async function gate(name: string, script: string, happened: (sessionId: string) => Promise<boolean>, mode?: string): Promise<Gate> {
  const created = await owner.api('POST', '/api/v1/sessions', { provider: 'script', title: name, text: script, cwd: folder, ...(mode ? { mode } : {}) });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const started = { id: created.body.session.id as string, messageId: created.body.message_id as string };
  const card = await owner.pendingCard(started.id).catch(async (error: unknown) => {
    throw new Error(`${name}: ${String(error)}: ${JSON.stringify((await owner.api('GET', `/api/v1/sessions/${started.id}?last=10`)).body)}`);
  });
  expect(card.kind, `${name}: a card that gates an action is an approval card`).toBe('approval');
  const made = { name, sessionId: started.id, messageId: started.messageId, cardId: card.id, happened: () => happened(started.id) };
  gates.push(made);
  return made;
}

beforeAll(async () => {
  folder = await realpath(await mkdtemp(join(tmpdir(), 'relay-gates-')));
  a = await startRelay({ name: 'guard-a', readyTimeoutMs: 240_000 });
  b = await startRelay({ name: 'guard-b', readyTimeoutMs: 240_000 });
  owner = new RelayUser(a, a.userToken);
  const member = await owner.api('POST', '/api/v1/users', { name: 'mallory' });
  expect(member.status, JSON.stringify(member.body)).toBe(201);
  stranger = new RelayUser(a, member.body.token);
  const created = await owner.api('POST', '/api/v1/sessions', { external: true, title: 'Sibling' });
  siblingToken = created.body.token;
  sibling = { id: created.body.session.id, client: await a.connectAgent(siblingToken) };
  outsider = await stranger.externalAgent('Outsider');

  const target = await owner.scriptSession('Target', 'reply ready');
  await owner.finish(target.id, target.messageId);
  const targetMessages = async () => (await owner.api('GET', `/api/v1/sessions/${target.id}?last=50`)).body.messages as { text: string }[];
  const watching = async (sessionId: string) => ((await owner.api('GET', `/api/v1/sessions/${sessionId}/subscriptions`)).body.subscriptions ?? []).length > 0;

  await gate('Command', 'task echo ran > proof-of-command.txt\nreply {{result.code}}', () => exists(join(folder, 'proof-of-command.txt')), 'plan');
  await gate('Read-only command', 'task cat /etc/hostname > proof-of-read.txt\nreply {{result.code}}', () => exists(join(folder, 'proof-of-read.txt')));
  await gate(
    'First session',
    `${toolStep({ action: 'create_session', relay: 'this', title: 'Spawned by an agent', text: 'reply hi', wait_seconds: 0 })}\nreply {{result.code}}`,
    () => sessionTitled(owner, 'Spawned by an agent'),
  );
  await gate(
    'Write in ask mode',
    `${toolStep({ action: 'send', relay: 'this', session: target.id, text: 'reply written behind your back', wait_seconds: 0 })}\nreply {{result.code}}`,
    async () => (await targetMessages()).some((message) => message.text.includes('written behind your back')),
    'ask',
  );
  await gate('First watch', `${toolStep({ action: 'subscribe', sessions: [target.id] })}\nreply {{result.code}}`, (id) => watching(id));
  await pairBothWays();
}, 900_000);

afterAll(async () => {
  await owner?.close();
  await stranger?.close();
  await Promise.all([a?.stop(), b?.stop()]);
  if (folder) await rm(folder, { recursive: true, force: true });
});

/** Pairs guard-b with guard-a; each side keeps the pairing at Full. */
async function pairBothWays(): Promise<void> {
  const code = await a.api('POST', '/api/v1/pairing-codes');
  expect(code.status, JSON.stringify(code.body)).toBe(201);
  const paired = await b.api('POST', '/api/v1/pairings', { url: a.gatewayUrl, code: code.body.code });
  expect(paired.status, JSON.stringify(paired.body)).toBe(201);
}

/** A script turn on guard-b (the relay is unlocked by its first line); its reply. */
async function fromB(steps: string[]): Promise<string> {
  const onB = new RelayUser(b, b.userToken);
  const started = await onB.scriptSession('Far agent', ['# guard-a', ...steps].join('\n'));
  const turn = await onB.finish(started.id, started.messageId);
  expect(turn.status, JSON.stringify(turn)).toBe('done');
  return turn.reply.text;
}

describe('every card that gates an action, by every path that is not its owner as a person', () => {
  it('an agent of the same user answering it with Allow is refused (REMOTE_RELAY_FORBIDDEN), by choices and by text', async () => {
    for (const { cardId, name } of gates) {
      for (const answer of [{ choices: ['Allow'] }, { answer: 'Allow' }, { choices: ['allow'], session: undefined }]) {
        expect(await callTool(sibling, { action: 'answer_question', relay: 'this', question_id: cardId, ...answer }), name).toMatchObject({
          ok: false,
          code: 'REMOTE_RELAY_FORBIDDEN',
        });
      }
    }
  });

  it('a hosted agent of the same user answering it from its own turn is refused', async () => {
    const steps = gates.map(
      ({ cardId }) => `${toolStep({ action: 'answer_question', relay: 'this', question_id: cardId, choices: ['Allow'] })}\nreply {{result.code}}`,
    );
    const started = await owner.scriptSession('Helpful agent', steps.join('\n'));
    const turn = await owner.finish(started.id, started.messageId);
    expect(turn.reply.text.split('\n')).toEqual(gates.map(() => 'REMOTE_RELAY_FORBIDDEN'));
  });

  it("another user's agent is told there is no such card, as for a card that never was", async () => {
    for (const { cardId } of gates) {
      expect(await callTool(outsider, { action: 'answer_question', relay: 'this', question_id: cardId, choices: ['Allow'] })).toMatchObject({
        ok: false,
        code: 'REMOTE_RELAY_NOT_FOUND',
      });
    }
    expect(await callTool(outsider, { action: 'answer_question', relay: 'this', question_id: 'card_zzzzzzzzzzzz', choices: ['Allow'] })).toMatchObject({
      ok: false,
      code: 'REMOTE_RELAY_NOT_FOUND',
    });
    // An ask id is refused the same way whether or not it exists, and whoever's it is: nothing to tell apart.
    expect(await callTool(outsider, { action: 'answer_question', relay: 'this', question_id: 'ask_zzzzzzzzzzzz', answer: 'x' })).toMatchObject({
      ok: false,
      code: 'REMOTE_RELAY_FORBIDDEN',
    });
  });

  it('another user deciding it through the user API is told there is no such card', async () => {
    for (const { cardId } of gates) {
      expect((await stranger.api('POST', `/api/v1/cards/${cardId}`, { decision: 'allow' })).status).toBe(404);
    }
  });

  it("the owner's session token does not reach the user API, whatever it claims", async () => {
    for (const { cardId } of gates) {
      const decided = await callUserApi(a.gatewayUrl, siblingToken, 'POST', `/api/v1/cards/${cardId}`, { decision: 'allow' });
      expect(decided.status).toBe(403);
    }
  });

  it('an agent on a paired relay answering it through /relay/v1 is refused', async () => {
    const steps = gates.map(
      ({ cardId }) => `${toolStep({ action: 'answer_question', relay: 'guard-a', question_id: cardId, choices: ['Allow'] })}\nreply {{result.code}}`,
    );
    expect((await fromB(steps)).split('\n')).toEqual(gates.map(() => 'REMOTE_RELAY_FORBIDDEN'));
  });

  it("an external agent's own card (its call in flight) is not its to answer either", async () => {
    const waiting = callTool(sibling, { action: 'create_session', relay: 'this', title: 'Spawned by the sibling', text: 'reply hi', wait_seconds: 0 });
    const card = await owner.pendingCard(sibling.id);
    expect(card.kind).toBe('approval');
    const second = await a.connectAgent(siblingToken);
    try {
      const own = await second.callTool({
        name: 'relay_tool',
        arguments: { action: 'answer_question', relay: 'this', question_id: card.id, choices: ['Allow'] },
      });
      expect(JSON.parse((own.content as { text: string }[])[0]!.text)).toMatchObject({ ok: false, code: 'REMOTE_RELAY_FORBIDDEN' });
    } finally {
      await second.close();
    }
    expect(await sessionTitled(owner, 'Spawned by the sibling')).toBe(false);
    expect((await owner.api('POST', `/api/v1/cards/${card.id}`, { decision: 'deny' })).status).toBe(200);
    expect(await waiting).toMatchObject({ ok: false, code: 'REMOTE_RELAY_PERMISSION' });
    expect(await sessionTitled(owner, 'Spawned by the sibling')).toBe(false);
  });

  it('after all of that, nothing any card gates has happened, and every card still waits for its owner', async () => {
    for (const { name, cardId, sessionId, happened } of gates) {
      expect(await happened(), name).toBe(false);
      expect((await owner.pendingCard(sessionId)).id, name).toBe(cardId);
    }
  });

  it('the owner, as a person, decides each through the user API, and then what it gates happens', async () => {
    for (const { name, cardId, sessionId, messageId, happened } of gates) {
      const decided = await owner.api('POST', `/api/v1/cards/${cardId}`, { decision: 'allow' });
      expect(decided.status, `${name}: ${JSON.stringify(decided.body)}`).toBe(200);
      await owner.finish(sessionId, messageId);
      await until(`${name} happens once allowed`, async () => ((await happened()) ? true : undefined));
    }
  });
});

describe('a question card that gates nothing stays answerable by another session, as the spec says', () => {
  it('the same user’s other agent answers it; another user’s cannot; a decision the card does not take changes nothing', async () => {
    const asking = await owner.scriptSession('Asks its user', 'ask_user Go on? | Yes | No\nreply {{answer}}');
    const card = await owner.pendingCard(asking.id);
    expect(card).toMatchObject({ kind: 'question', options: ['Yes', 'No'] });
    // "allow" is not a question card's decision: refused, and the card still waits.
    expect(await owner.api('POST', `/api/v1/cards/${card.id}`, { decision: 'allow' })).toMatchObject({
      status: 400,
      body: { code: 'REMOTE_RELAY_INVALID_INPUT' },
    });
    expect((await owner.pendingCard(asking.id)).id).toBe(card.id);
    expect(await callTool(outsider, { action: 'answer_question', relay: 'this', question_id: card.id, choices: ['Yes'] })).toMatchObject({
      ok: false,
      code: 'REMOTE_RELAY_NOT_FOUND',
    });
    expect(await callTool(sibling, { action: 'answer_question', relay: 'this', question_id: card.id, choices: ['Yes'] })).toMatchObject({
      ok: true,
      status: 'answered',
    });
    expect((await owner.finish(asking.id, asking.messageId)).reply.text).toContain('Yes');
  });
});

describe('the receiving relay holds a paired relay to its own rules', () => {
  it("changes a session there only on that relay's person's Allow, whatever the calling relay's user allowed", async () => {
    const there = await owner.scriptSession('Kept by guard-a', 'reply ready');
    await owner.finish(there.id, there.messageId);
    const onB = new RelayUser(b, b.userToken);
    const started = await onB.scriptSession(
      'Renamer',
      [
        '# guard-a',
        toolStep({ action: 'update_session', relay: 'guard-a', session: there.id, title: 'Renamed from afar' }),
        'reply {{result.code}} {{result.card}}',
      ].join('\n'),
    );
    // guard-b's own rule: its user allows the change in the calling conversation.
    const onBCard = await onB.pendingCard(started.id);
    expect((await onB.api('POST', `/api/v1/cards/${onBCard.id}`, { decision: 'allow' })).status).toBe(200);
    // guard-a asks its own person, in the session the change is about; Deny there changes nothing.
    const aCard = await owner.pendingCard(there.id);
    expect(aCard).toMatchObject({ kind: 'approval' });
    expect(aCard.lines.join(' ')).toContain('guard-b');
    expect((await owner.api('POST', `/api/v1/cards/${aCard.id}`, { decision: 'deny' })).status).toBe(200);
    const turn = await onB.finish(started.id, started.messageId);
    expect(turn.reply.text).toMatch(/^REMOTE_RELAY_PERMISSION/);
    expect((await owner.api('GET', `/api/v1/sessions/${there.id}`)).body.session.title).toBe('Kept by guard-a');
  });

  it('a pairing guard-a sets to off gets nothing there, whatever guard-b grants itself', async () => {
    const set = await a.api('PATCH', '/api/v1/pairings/guard-b', { level: 'off' });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    try {
      const replies = await fromB([
        toolStep({ action: 'list_sessions', relay: 'guard-a' }),
        'reply {{result.code}}',
        toolStep({ action: 'create_session', relay: 'guard-a', title: 'Made while off', text: 'reply hi', wait_seconds: 0 }),
        'reply {{result.code}}',
      ]);
      expect(replies.split('\n')).toEqual(['REMOTE_RELAY_PERMISSION', 'REMOTE_RELAY_PERMISSION']);
      expect(await sessionTitled(owner, 'Made while off')).toBe(false);
    } finally {
      await a.api('PATCH', '/api/v1/pairings/guard-b', { level: 'full' });
    }
  });
});
