import type { Logger } from '@relay/telemetry';
import type { TurnInput } from '../turns/provider.ts';
import type { UsageLedger } from './ports.ts';

/** What a provider's turn used, as it reported it (costUsd null where it reports no cost). */
export interface TurnUsed {
  inputTokens: number;
  outputTokens: number;
  costUsd: number | null;
}

/**
 * Records in the relay's ledger what `provider`'s turn of `input` used. Accounting never fails a turn that ran: a
 * ledger that refuses is logged, and the turn goes on.
 */
export async function recordTurnUsage(usage: Pick<UsageLedger, 'record'>, provider: string, input: TurnInput, used: TurnUsed, logger?: Logger): Promise<void> {
  await usage
    .record({ messageId: input.message.id, sessionId: input.session.id, provider, model: input.session.model, ...used, recordedAt: input.clock.now() })
    .catch((error: unknown) => logger?.warn({ err: error, sessionId: input.session.id, provider }, 'could not record the turn’s usage'));
}
