/**
 * Pairing in the user API, /api/v1, for a user's own bearer token (spec, Settings → Relays): make a one-time
 * pairing code, pair with another relay by its URL and code, list the pairings, set a pairing's "Agents may"
 * level, unpair, and read or set this relay's "Accept prompts from other relays' agents". Errors answer
 * `{ code, error }` (../user-api.ts).
 *
 * Pairings are relay-wide: one per other relay, listed, re-levelled and unpaired by name whoever made it, and
 * its level governs every agent of that relay here (the owner recorded at pairing is only whom its calls act
 * for). So making a code, pairing, setting a level, unpairing and the Accept prompts setting are for admins
 * (403 REMOTE_RELAY_FORBIDDEN for a member); reading the pairings and the setting is open to every user.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { adminOf, callOwner, sendInvalid, userOf, type UserApiDeps } from '../user-api.ts';
import { acceptsPrompts, agentLevelOf, pairingView } from '../../../app/views/pairing-view.ts';
import { AGENT_LEVELS } from '../../../domain/agent-levels.ts';
import { answered } from '../../../domain/answers.ts';
import { REMOTE_DEADLINE_MS, type PairingClient } from '../../../app/ports.ts';
import { RELAY_VERSION } from '../../../domain/version.ts';

export interface PairingRouteDeps extends UserApiDeps {
  relayName: string;
  /** The base URL the other relay reaches this one at. */
  publicUrl: string;
  pairing: PairingClient;
}

const PairBody = z.object(
  {
    url: z.string({ error: 'url (the other relay\'s address) is required' }).trim().min(1, { error: 'url must not be empty' }),
    code: z.string({ error: 'code (made on the other relay) is required' }).trim().min(1, { error: 'code must not be empty' }),
  },
  { error: 'the body must be a JSON object, for example {"url": "https://build-box.example.com", "code": "ABCD-EFGH-JKMN"}' },
);

const LevelBody = z.object(
  { level: z.enum(AGENT_LEVELS, { error: `level must be one of: ${AGENT_LEVELS.join(', ')}` }) },
  { error: 'the body must be a JSON object, for example {"level": "read"}' },
);

const SettingsBody = z.object(
  { accept_prompts: z.boolean({ error: 'accept_prompts must be true or false' }) },
  { error: 'the body must be a JSON object, for example {"accept_prompts": false}' },
);

const NameParams = z.object({ name: z.string().min(1) });

/** Registers /api/v1/pairing-codes, /api/v1/pairings[/:name] and /api/v1/pairing-settings on `app`. */
export function registerPairingRoutes(app: FastifyInstance, deps: PairingRouteDeps): void {
  app.post('/api/v1/pairing-codes', async (request, reply) => {
    const userId = await adminOf(deps, request, reply, 'make pairing codes');
    if (userId === undefined) return reply;
    const made = await callOwner(reply, deps.logger, () => deps.pairing.createPairingCode({ userId }));
    if (made === undefined) return reply;
    return reply.code(201).send({ code: made.code, expiresAt: answered(made.expiresAt, 'CreatePairingCode', 'expires_at').toISOString(), relay: deps.relayName, url: deps.publicUrl });
  });

  app.post('/api/v1/pairings', async (request, reply) => {
    const userId = await adminOf(deps, request, reply, 'pair with another relay');
    if (userId === undefined) return reply;
    const body = PairBody.safeParse(request.body ?? {});
    if (!body.success) return sendInvalid(reply, body.error);
    const pair = { userId, url: body.data.url, code: body.data.code, selfName: deps.relayName, selfUrl: deps.publicUrl, selfVersion: RELAY_VERSION };
    const paired = await callOwner(reply, deps.logger, () => deps.pairing.pair(pair, { deadlineMs: REMOTE_DEADLINE_MS }));
    if (paired === undefined) return reply;
    return reply.code(201).send({ pairing: pairingView(answered(paired.relay, 'Pair', 'relay')) });
  });

  app.get('/api/v1/pairings', async (request, reply) => {
    const userId = await userOf(deps, request, reply);
    if (userId === undefined) return reply;
    const listed = await callOwner(reply, deps.logger, () => deps.pairing.listPairedRelays({}));
    if (listed === undefined) return reply;
    return { pairings: listed.relays.map(pairingView) };
  });

  app.patch('/api/v1/pairings/:name', async (request, reply) => {
    const userId = await adminOf(deps, request, reply, "change what a paired relay's agents may do");
    if (userId === undefined) return reply;
    const { name } = NameParams.parse(request.params);
    const body = LevelBody.safeParse(request.body ?? {});
    if (!body.success) return sendInvalid(reply, body.error);
    const set = await callOwner(reply, deps.logger, () => deps.pairing.setAgentLevel({ name, level: agentLevelOf(body.data.level) }));
    if (set === undefined) return reply;
    return { pairing: pairingView(answered(set.relay, 'SetAgentLevel', 'relay')) };
  });

  app.delete('/api/v1/pairings/:name', async (request, reply) => {
    const userId = await adminOf(deps, request, reply, 'unpair a relay');
    if (userId === undefined) return reply;
    const { name } = NameParams.parse(request.params);
    const unpaired = await callOwner(reply, deps.logger, () => deps.pairing.unpair({ name }));
    if (unpaired === undefined) return reply;
    return { pairing: pairingView(answered(unpaired.relay, 'Unpair', 'relay')), unpaired: true };
  });

  app.get('/api/v1/pairing-settings', async (request, reply) => {
    const userId = await userOf(deps, request, reply);
    if (userId === undefined) return reply;
    const read = await callOwner(reply, deps.logger, () => deps.pairing.getPairingSettings({}));
    if (read === undefined) return reply;
    return { accept_prompts: acceptsPrompts(read.settings) };
  });

  app.put('/api/v1/pairing-settings', async (request, reply) => {
    const userId = await adminOf(deps, request, reply, "change whether other relays' agents may send prompts");
    if (userId === undefined) return reply;
    const body = SettingsBody.safeParse(request.body ?? {});
    if (!body.success) return sendInvalid(reply, body.error);
    const set = await callOwner(reply, deps.logger, () => deps.pairing.setPairingSettings({ acceptPrompts: body.data.accept_prompts }));
    if (set === undefined) return reply;
    return { accept_prompts: acceptsPrompts(set.settings) };
  });
}
