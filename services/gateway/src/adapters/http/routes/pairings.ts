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
import { adminOf, callOwner, userOf, type UserApiDeps } from '../user-api.ts';
import { answers, invalidInput, madeAnswers, typed } from '../openapi.ts';
import { Pairing } from '../api-schemas.ts';
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
    url: z.string({ error: "url (the other relay's address) is required" }).trim().min(1, { error: 'url must not be empty' }),
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
  const api = typed(app);
  const PairingCode = z
    .strictObject({
      code: z.string(),
      expiresAt: z.string(),
      relay: z.string().describe("This relay's name."),
      url: z.string().describe("This relay's address."),
    })
    .meta({ id: 'PairingCode', description: 'A one-time code another relay pairs with, and the relay that made it.' });
  api.post('/api/v1/pairing-codes', { schema: { response: madeAnswers(PairingCode) } }, async (request, reply) => {
    const userId = await adminOf(deps, request, reply, 'make pairing codes');
    if (userId === undefined) return reply;
    const made = await callOwner(reply, deps.logger, () => deps.pairing.createPairingCode({ userId }));
    if (made === undefined) return reply;
    return reply.code(201).send({
      code: made.code,
      expiresAt: answered(made.expiresAt, 'CreatePairingCode', 'expires_at').toISOString(),
      relay: deps.relayName,
      url: deps.publicUrl,
    });
  });

  const PairingAnswer = z.strictObject({ pairing: Pairing });
  api.post('/api/v1/pairings', { schema: { body: PairBody, response: madeAnswers(PairingAnswer) }, attachValidation: true }, async (request, reply) => {
    const userId = await adminOf(deps, request, reply, 'pair with another relay');
    if (userId === undefined || invalidInput(request, reply)) return reply;
    const { url, code } = request.body;
    const pair = { userId, url, code, selfName: deps.relayName, selfUrl: deps.publicUrl, selfVersion: RELAY_VERSION };
    const paired = await callOwner(reply, deps.logger, () => deps.pairing.pair(pair, { deadlineMs: REMOTE_DEADLINE_MS }));
    if (paired === undefined) return reply;
    return reply.code(201).send({ pairing: pairingView(answered(paired.relay, 'Pair', 'relay')) });
  });

  api.get('/api/v1/pairings', { schema: { response: answers(z.strictObject({ pairings: z.array(Pairing) })) } }, async (request, reply) => {
    const userId = await userOf(deps, request, reply);
    if (userId === undefined) return reply;
    const listed = await callOwner(reply, deps.logger, () => deps.pairing.listPairedRelays({}));
    if (listed === undefined) return reply;
    return { pairings: listed.relays.map(pairingView) };
  });

  api.patch(
    '/api/v1/pairings/:name',
    { schema: { params: NameParams, body: LevelBody, response: answers(PairingAnswer) }, attachValidation: true },
    async (request, reply) => {
      const userId = await adminOf(deps, request, reply, "change what a paired relay's agents may do");
      if (userId === undefined || invalidInput(request, reply)) return reply;
      const { name } = request.params;
      const { level } = request.body;
      const set = await callOwner(reply, deps.logger, () => deps.pairing.setAgentLevel({ name, level: agentLevelOf(level) }));
      if (set === undefined) return reply;
      return { pairing: pairingView(answered(set.relay, 'SetAgentLevel', 'relay')) };
    },
  );

  const Unpaired = z.strictObject({ pairing: Pairing, unpaired: z.literal(true) });
  api.delete('/api/v1/pairings/:name', { schema: { params: NameParams, response: answers(Unpaired) }, attachValidation: true }, async (request, reply) => {
    const userId = await adminOf(deps, request, reply, 'unpair a relay');
    if (userId === undefined || invalidInput(request, reply)) return reply;
    const { name } = request.params;
    const unpaired = await callOwner(reply, deps.logger, () => deps.pairing.unpair({ name }));
    if (unpaired === undefined) return reply;
    return { pairing: pairingView(answered(unpaired.relay, 'Unpair', 'relay')), unpaired: true as const };
  });

  const PairingSettings = z
    .strictObject({ accept_prompts: z.boolean().describe("Other relays' agents may send prompts here.") })
    .meta({ id: 'PairingSettings' });
  api.get('/api/v1/pairing-settings', { schema: { response: answers(PairingSettings) } }, async (request, reply) => {
    const userId = await userOf(deps, request, reply);
    if (userId === undefined) return reply;
    const read = await callOwner(reply, deps.logger, () => deps.pairing.getPairingSettings({}));
    if (read === undefined) return reply;
    return { accept_prompts: acceptsPrompts(read.settings) };
  });

  api.put(
    '/api/v1/pairing-settings',
    { schema: { body: SettingsBody, response: answers(PairingSettings) }, attachValidation: true },
    async (request, reply) => {
      const userId = await adminOf(deps, request, reply, "change whether other relays' agents may send prompts");
      if (userId === undefined || invalidInput(request, reply)) return reply;
      const { accept_prompts: acceptPrompts } = request.body;
      const set = await callOwner(reply, deps.logger, () => deps.pairing.setPairingSettings({ acceptPrompts }));
      if (set === undefined) return reply;
      return { accept_prompts: acceptsPrompts(set.settings) };
    },
  );
}
