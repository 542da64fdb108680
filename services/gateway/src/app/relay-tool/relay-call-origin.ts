/** A paired relay's call as it arrives here (serve-relay-call.ts), as the actions that serve it read it. */
import type { Provenance } from '@relay/proto/relay/session/v1/session';
import type { AuthenticateRelayResponse as RelayCaller } from '@relay/proto/relay/pairing/v1/pairing_service';

/** Who calls, and the provenance the call carries. */
export interface RelayCallOrigin extends RelayCaller {
  provenance: Provenance;
  /** Only check the call (before the calling relay shows a card); nothing changes. */
  dryRun: boolean;
}
