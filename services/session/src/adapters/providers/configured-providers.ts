/**
 * The provider plug-ins this relay's configuration sets up, read off the definitions (provider-list.ts), with the
 * agents' CLIs they start located where the sandbox starts them, each one's model list at start, and the prices usage
 * meters them at.
 */
import type { Logger } from '@relay/telemetry';
import type { Config, ModelPriceConfig } from '../../config.ts';
import type { Provider } from '../../app/turns/provider.ts';
import type { ProviderPorts } from './define-provider.ts';
import { PROVIDER_DEFINITIONS } from './provider-list.ts';

/** The plug-ins, once the sandbox said where their CLIs are (all asked at once: one call to the command runner). */
export async function configuredProviders(config: Config, ports: ProviderPorts): Promise<Provider[]> {
  const named = PROVIDER_DEFINITIONS.map((definition) => Object.entries(definition.clis?.(config, ports) ?? {}));
  const found = await ports.cli.locate(named.flat().map(([, program]) => program));
  let next = 0;
  return PROVIDER_DEFINITIONS.flatMap((definition, index) => {
    const clis = Object.fromEntries(named[index]!.map(([name]) => [name, found[next++]]));
    return definition.plugIns?.(config, ports, clis) ?? [];
  });
}

/** Per provider id, the prices of the providers that meter reported tokens (undefined: tokens only). */
export function providerPrices(config: Config): Record<string, Readonly<Record<string, ModelPriceConfig>> | undefined> {
  return Object.assign({}, ...PROVIDER_DEFINITIONS.map((definition) => definition.prices?.(config) ?? {})) as Record<
    string,
    Readonly<Record<string, ModelPriceConfig>> | undefined
  >;
}

/**
 * Each provider's model list at start: configured, else discovered (at most `timeoutMs` each); a
 * provider whose discovery fails keeps an unknown list, and its models go on unchecked.
 */
export async function discoverModelLists(providers: readonly Provider[], logger: Logger, timeoutMs = 5_000): Promise<Map<string, string[] | undefined>> {
  const lists = await Promise.all(
    providers.map(async (provider) => {
      if (!provider.availability().available) return [provider.id, undefined] as const;
      const models = await provider.listModels(AbortSignal.timeout(timeoutMs)).catch((error: unknown) => {
        logger.warn({ err: error, provider: provider.id }, 'could not discover the provider’s models; they stay unknown');
        return undefined;
      });
      return [provider.id, models] as const;
    }),
  );
  return new Map(lists);
}
