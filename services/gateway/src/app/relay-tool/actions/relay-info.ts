/**
 * relay_info: what a relay offers, so the agent can choose a provider, model and folder for a new
 * session: its name, version and platform, whether it accepts agent prompts, each provider with its
 * default model, models and reasoning efforts, the default and recent working folders, the relay
 * modes, and its session groups (id, name, memberCount; latest activity first; at most 50, with
 * groupsTotal when there are more).
 */
import { arch, platform } from 'node:os';
import type { ProviderInfo } from '@relay/proto/relay/session/v1/session';
import { RELAY_VERSION } from '../../../domain/version.ts';
import type { ActionContext } from '../action-context.ts';
import { defineAction } from '../define-action.ts';
import { argumentsOf, type ToolArguments } from '../../../domain/tool-arguments.ts';
import { GROUPS_LIMIT } from '../../../domain/limits.ts';
import { count, success, type Success } from '../../../domain/result.ts';
import { thisRelay } from '../../../domain/this-relay.ts';
import { acceptsPrompts } from '../../views/pairing-view.ts';

export const relayInfo = defineAction({
  name: 'relay_info',
  args: argumentsOf('relay'),
  relay: 'required',
  write: false,
  answersAtOnce: true,
  toPaired: { level: 'read', forwarded: true },
  handler: runRelayInfo,
  fromPaired: (args, context) => runRelayInfo(args, context),
});

async function runRelayInfo(args: ToolArguments, context: ActionContext): Promise<Success> {
  const relay = thisRelay(args.relay, context);
  const [info, pairing] = await Promise.all([
    context.sessions.getRelayInfo({ userId: context.caller.userId, withoutUsage: true, pendingForSessionId: context.pendingAlong?.sessionId }),
    context.pairing.getPairingSettings({}),
  ]);
  context.pendingAlong?.answered(info.pending);
  const groups = info.groups.slice(0, GROUPS_LIMIT).map(({ id, name, memberCount }) => ({ id, name, memberCount }));
  const groupsTotal = Math.max(info.groupsTotal, groups.length);
  const available = info.providers.filter((provider) => provider.available).length;
  return success(
    `relay_info → ${relay}: ${count(info.providers.length, 'provider')} (${available} available), ${count(groupsTotal, 'group')}`,
    {
      name: relay,
      version: RELAY_VERSION,
      platform: `${platform()}-${arch()}`,
      // The owner's switch "Accept prompts from other relays' agents" (Settings → Relays).
      acceptsAgentPrompts: acceptsPrompts(pairing.settings),
      providers: info.providers.map(providerView),
      folders: { default: info.defaultCwd, recent: info.recentCwds },
      modes: info.modes,
      groups,
      ...(groupsTotal > groups.length ? { groupsTotal } : {}),
    },
    relay,
  );
}

function providerView(provider: ProviderInfo) {
  return {
    id: provider.id,
    name: provider.name,
    available: provider.available,
    ...(provider.available ? {} : { reason: provider.reason }),
    defaultModel: provider.defaultModel,
    models: provider.models,
    efforts: provider.efforts,
    ...(provider.modelsKnown ? {} : { modelsNote: 'This relay has no model list for this provider yet: a model goes on unchecked.' }),
  };
}
