/**
 * usage: what each provider's plan has left on this relay. This relay does not account tokens or
 * cost per turn yet, so no provider has meters: a provider that is set up says "not_tracked", one
 * that is not says "not_set_up" (with why); no Claude usage limit has paused turns. Account names,
 * addresses and tokens are never included.
 */
import type { ProviderInfo } from '../../ports.ts';
import type { Action } from '../action-context.ts';
import { success } from '../result.ts';
import { thisRelay } from '../this-relay.ts';

export const usage: Action = async (args, context) => {
  const relay = thisRelay(args.relay, context);
  const info = await context.sessions.getRelayInfo(context.caller.userId);
  const providers = info.providers.map(providerUsage);
  const tracked = providers.filter((provider) => provider.status === 'not_tracked').length;
  return success(
    `usage → ${relay}: ${providers.length - tracked} of ${providers.length} providers not set up; no usage is tracked on this relay yet`,
    { providers, claudeUsageLimitPaused: false },
    relay,
  );
};

function providerUsage(provider: ProviderInfo) {
  return provider.available
    ? { provider: provider.id, status: 'not_tracked' as const, meters: [] }
    : { provider: provider.id, status: 'not_set_up' as const, reason: provider.reason, meters: [] };
}
