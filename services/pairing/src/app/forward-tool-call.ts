import { isAppError } from '@relay/errors';
import { unknownRelay } from '../domain/errors.ts';
import type { PairedRelayStore, Provenance, RelayLink } from './ports.ts';

export interface ForwardInput {
  relay: string;
  action: string;
  argumentsJson: string;
  provenance: Provenance;
  timeoutMs: number;
  /** Only check the call there; nothing changes. */
  dryRun: boolean;
}

/**
 * Forwards one relay_tool call to a paired relay with this relay's token and the prompt's provenance, and
 * notes what the contact showed (online, its version). The caller has checked lock, level and hops.
 */
export async function forwardToolCall(
  deps: { relays: PairedRelayStore; link: RelayLink },
  input: ForwardInput,
  now: Date,
): Promise<{ resultJson: string; version: string }> {
  const relay = await deps.relays.find(input.relay);
  if (relay === undefined) throw unknownRelay(input.relay);
  try {
    const answer = await deps.link.callTool(
      { url: relay.url, token: relay.outboundToken },
      { action: input.action, argumentsJson: input.argumentsJson, provenance: input.provenance, timeoutMs: input.timeoutMs, dryRun: input.dryRun },
    );
    await deps.relays.noteContact(relay.name, { online: true, version: answer.version || undefined, at: now });
    return answer;
  } catch (error) {
    if (isAppError(error) && error.kind === 'unavailable') await deps.relays.noteContact(relay.name, { online: false, at: now });
    throw error;
  }
}
