/** The built-in script agent (decisions.md, Providers): on unless RELAY_SCRIPT_PROVIDER is off. */
import { defineProvider } from '../define-provider.ts';
import { ScriptProvider } from './script-provider.ts';

export const scriptDefinition = defineProvider({
  folder: 'script',
  env: ['RELAY_SCRIPT_PROVIDER', 'RELAY_GATEWAY_URL'],
  list: (settings) => [
    {
      id: 'script',
      name: 'Script',
      family: 'script',
      configured: settings.RELAY_SCRIPT_PROVIDER !== 'off',
      missing: 'the script agent is switched off on this relay (RELAY_SCRIPT_PROVIDER)',
      models: ['script-1'],
      efforts: [],
    },
  ],
  // Off, the relay has no plug-in for it: a script session's turn ends as an error, and the catalogue says why.
  plugIns: (config, ports) =>
    config.RELAY_SCRIPT_PROVIDER === 'off'
      ? []
      : [new ScriptProvider({ gatewayUrl: config.RELAY_GATEWAY_URL, cards: ports.cards, logger: ports.logger, tasks: ports.tasks })],
});
