import type { Clock } from '@relay/clock';
import {
  AgentLevel as AgentLevelMessage,
  type PairedRelay as PairedRelayMessage,
  type PairingServiceServer,
} from '@relay/proto/relay/pairing/v1/pairing_service';
import { serveUnary } from '@relay/rpc';
import type { Logger } from '@relay/telemetry';
import { acceptPairing } from '../../app/accept-pairing.ts';
import { authenticateRelay } from '../../app/authenticate-relay.ts';
import { invalidInput } from '../../domain/errors.ts';
import { forwardToolCall } from '../../app/forward-tool-call.ts';
import { listPairedRelays } from '../../app/list-paired-relays.ts';
import { setAgentLevel, unpair } from '../../app/manage-pairing.ts';
import { pair } from '../../app/pair.ts';
import { createPairingCode } from '../../app/create-pairing-code.ts';
import type { AgentLevel, PairedRelayStatus } from '../../domain/paired-relay.ts';
import type { PairedRelayStore, PairingCodeStore, PairingSettingsStore, RelayLink, Secrets } from '../../app/ports.ts';

/** The generated server interface without grpc-js's index signature, which UnaryHandlers would map to never. */
type PairingServiceMethods = { [K in keyof PairingServiceServer as string extends K ? never : K]: PairingServiceServer[K] };

const LEVELS: Record<AgentLevel, AgentLevelMessage> = {
  off: AgentLevelMessage.AGENT_LEVEL_OFF,
  read: AgentLevelMessage.AGENT_LEVEL_READ,
  read_and_prompt: AgentLevelMessage.AGENT_LEVEL_READ_AND_PROMPT,
  full: AgentLevelMessage.AGENT_LEVEL_FULL,
};

export interface PairingGrpcDeps {
  relays: PairedRelayStore;
  codes: PairingCodeStore;
  settings: PairingSettingsStore;
  secrets: Secrets;
  link: RelayLink;
  clock: Clock;
  logger: Logger;
}

/** relay.pairing.v1.PairingService: decode the request, run the use case, encode the answer. */
export function pairingGrpc(deps: PairingGrpcDeps): ReturnType<typeof serveUnary> {
  const now = () => deps.clock.now();
  return serveUnary<PairingServiceMethods>(deps.logger, {
    listPairedRelays: async () => ({ relays: (await listPairedRelays(deps.relays)).map(toPairedRelayMessage) }),
    createPairingCode: async (request) => createPairingCode(deps, request.userId, now()),
    pair: async (request) => {
      const self = { name: request.selfName, url: request.selfUrl, version: request.selfVersion };
      const relay = await pair(deps, { userId: request.userId, url: request.url, code: request.code, self }, now());
      deps.logger.info({ relay: relay.name, url: relay.url }, 'paired with a relay');
      return { relay: toPairedRelayMessage(relay) };
    },
    acceptPairing: async (request) => {
      const self = { name: request.selfName, version: request.selfVersion };
      const answer = await acceptPairing(
        deps,
        { code: request.code, name: request.name, url: request.url, version: request.version, token: request.token, self },
        now(),
      );
      deps.logger.info({ relay: request.name, url: request.url }, 'a relay paired with this one');
      return answer;
    },
    unpair: async (request) => ({ relay: toPairedRelayMessage(await unpair(deps, request.name, now())) }),
    setAgentLevel: async (request) => ({ relay: toPairedRelayMessage(await setAgentLevel(deps.relays, request.name, levelOf(request.level))) }),
    getPairingSettings: async () => ({ settings: await deps.settings.get() }),
    setPairingSettings: async (request) => ({
      settings: await deps.settings.set(request.acceptPrompts === undefined ? {} : { acceptPrompts: request.acceptPrompts }),
    }),
    authenticateRelay: async (request) => {
      const caller = await authenticateRelay(deps, request.token);
      return { ...caller, level: LEVELS[caller.level] };
    },
    forwardToolCall: async (request) => {
      const provenance = request.provenance ?? { originRelay: '', originSessionId: '', originSessionTitle: '', model: '', hops: 0, viaRelays: [] };
      return forwardToolCall(
        deps,
        {
          relay: request.relay,
          action: request.action,
          argumentsJson: request.argumentsJson,
          provenance,
          timeoutMs: Math.max(1, request.timeoutSeconds) * 1000,
          dryRun: request.dryRun,
        },
        now(),
      );
    },
  });
}

function levelOf(level: AgentLevelMessage): AgentLevel {
  const found = (Object.entries(LEVELS) as [AgentLevel, AgentLevelMessage][]).find(([, message]) => message === level);
  if (found === undefined) throw invalidInput('level must be one of: off, read, read_and_prompt, full');
  return found[0];
}

function toPairedRelayMessage(relay: PairedRelayStatus): PairedRelayMessage {
  return {
    name: relay.name,
    url: relay.url,
    online: relay.online,
    version: relay.version,
    level: LEVELS[relay.level],
    ownerUserId: relay.ownerUserId,
    pairedAt: relay.pairedAt,
  };
}
