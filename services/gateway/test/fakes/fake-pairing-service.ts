/**
 * The fake pairing service: the paired relays, their relay tokens and "Agents may" levels, the pairing settings, and
 * the other relay answering the calls forwarded to it (needsAllow on an update_session dry run of a session it did
 * not start).
 */
import { AppError } from '@relay/errors';
import { AgentLevel, PairingServiceService, type PairingServiceServer } from '@relay/proto/relay/pairing/v1/pairing_service';
import type { GrpcServer } from '@relay/rpc';
import type { Logger } from '@relay/telemetry';
import type { OwnersState } from './owners-state.ts';
import { serveFake } from './serve-fake.ts';

/** Starts the fake pairing service over `state`. */
export function startFakePairingService(state: OwnersState, logger: Logger): Promise<GrpcServer> {
  const { paired, forwarded, relayTokens, failing, owners } = state;
  return serveFake<PairingServiceServer>(PairingServiceService, 'pairing', logger, {
    unary: {
      listPairedRelays: async () => {
        if (failing.has('listPairedRelays')) throw new Error('listPairedRelays broke');
        return { relays: paired };
      },
      getPairingSettings: async () => ({ settings: { acceptPrompts: owners.acceptPrompts } }),
      authenticateRelay: async (request) => {
        const caller = relayTokens.get(request.token);
        if (caller === undefined) throw new AppError('REMOTE_RELAY_AUTH', 'unauthenticated', 'unknown relay token');
        return { level: AgentLevel.AGENT_LEVEL_FULL, ...caller };
      },
      forwardToolCall: async (request) => {
        forwarded.push(request);
        const args = JSON.parse(request.argumentsJson) as Record<string, unknown>;
        if (args.session === 'missing') {
          return { resultJson: JSON.stringify({ ok: false, code: 'REMOTE_RELAY_NOT_FOUND', error: 'no such session there' }), version: '0.9.19' };
        }
        // The other relay's dry run says its person must allow it; the call itself it answers as if they did, on its own card.
        if (request.action === 'update_session' && String(args.session).startsWith('theirs') && request.dryRun) {
          const settings = { title: 'Nightly deploy', model: args.model ?? 'script-1', group: null };
          return {
            resultJson: JSON.stringify({ ok: false, code: 'REMOTE_RELAY_PERMISSION', error: 'needs the Allow', needsAllow: true, settings }),
            version: '0.9.19',
          };
        }
        const started = request.action === 'create_session' ? { session: 'remote-1' } : {};
        const spent = owners.treeSpent === undefined ? {} : { treeSpent: owners.treeSpent };
        return {
          resultJson: JSON.stringify({ ok: true, relay: request.relay, summary: `${request.action} → ${request.relay}: answered there`, ...started, ...spent }),
          version: '0.9.19',
        };
      },
    },
  });
}
