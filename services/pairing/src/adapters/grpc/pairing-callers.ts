import type { PairingServiceService } from '@relay/proto/relay/pairing/v1/pairing_service';
import type { RemoteEventsServiceService } from '@relay/proto/relay/pairing/v1/remote_events';
import type { Callers } from '@relay/rpc';

const GATEWAY = ['gateway'] as const;

/** Who may call each PairingService RPC: only the gateway (the user API, /relay/v1 and relay_tool). */
export const PAIRING_CALLERS = {
  listPairedRelays: GATEWAY,
  createPairingCode: GATEWAY,
  pair: GATEWAY,
  acceptPairing: GATEWAY,
  unpair: GATEWAY,
  setAgentLevel: GATEWAY,
  getPairingSettings: GATEWAY,
  setPairingSettings: GATEWAY,
  authenticateRelay: GATEWAY,
  forwardToolCall: GATEWAY,
} satisfies Callers<typeof PairingServiceService>;

/** Who may call each RemoteEventsService RPC: only the gateway (watching and asking across paired relays). */
export const REMOTE_EVENTS_CALLERS = {
  keepWatch: GATEWAY,
  endWatch: GATEWAY,
  fetchWatchEvents: GATEWAY,
  openRemoteSubscription: GATEWAY,
  closeRemoteSubscription: GATEWAY,
  openRemoteAsk: GATEWAY,
  listRemoteAsks: GATEWAY,
  withdrawRemoteAsk: GATEWAY,
} satisfies Callers<typeof RemoteEventsServiceService>;
