import { RELAY_MODES, type RelayMode } from './session.ts';
import { invalidInput, providerUnavailable } from '../errors.ts';
import type { ProviderInfo } from '../catalogue/provider-catalogue.ts';

/** Titles longer than this are refused. */
export const MAX_SESSION_TITLE_LENGTH = 200;
/** A title taken from the first prompt is cut to this many characters. */
export const DEFAULT_TITLE_LENGTH = 60;

/** The action a setting is checked for; it decides a refusal's last sentence (and Copilot's rule for models). */
export type ModelAction = 'create' | 'send' | 'update';

const NOTHING: Record<ModelAction, string> = {
  create: 'Nothing was created.',
  send: 'Nothing was sent.',
  update: 'Nothing was changed.',
};

/** The last sentence of a refusal of this action. */
export function nothingDone(action: ModelAction): string {
  return NOTHING[action];
}

/** A relay mode, or a refusal naming the modes there are. */
export function checkMode(mode: string, action: ModelAction): RelayMode {
  if ((RELAY_MODES as readonly string[]).includes(mode)) return mode as RelayMode;
  throw invalidInput(`mode '${mode}' is not a relay mode; use one of ${RELAY_MODES.join(', ')}. ${NOTHING[action]}`, {
    field: 'mode',
    allowed: [...RELAY_MODES],
  });
}

/** A reasoning effort the provider offers, or a refusal listing the ones it has. */
export function checkEffort(provider: ProviderInfo, effort: string, action: ModelAction): string {
  if (provider.efforts.includes(effort)) return effort;
  const offered =
    provider.efforts.length === 0 ? `${provider.name} has no reasoning efforts; leave effort out` : `${provider.name} offers ${provider.efforts.join(', ')}`;
  throw invalidInput(`effort '${effort}' is not offered: ${offered}. ${NOTHING[action]}`, { field: 'effort', efforts: provider.efforts });
}

/** Refuses a provider that is not set up or not usable here, with its own code as remoteCode when it has one. */
export function requireAvailable(provider: ProviderInfo, relayName: string, action: ModelAction): void {
  if (provider.available) return;
  throw providerUnavailable(`${provider.name} is not available on relay "${relayName}": ${provider.reason}. ${NOTHING[action]}`, {
    provider: provider.id,
    ...(provider.reasonCode === '' ? {} : { remoteCode: provider.reasonCode }),
  });
}

/** A trimmed, non-empty title of at most MAX_SESSION_TITLE_LENGTH characters. */
export function checkTitle(title: string, action: ModelAction): string {
  const trimmed = title.trim();
  if (trimmed === '') throw invalidInput(`title must not be empty. ${NOTHING[action]}`, { field: 'title' });
  if (trimmed.length > MAX_SESSION_TITLE_LENGTH) {
    throw invalidInput(`title is longer than ${MAX_SESSION_TITLE_LENGTH} characters. ${NOTHING[action]}`, {
      field: 'title',
      max: MAX_SESSION_TITLE_LENGTH,
    });
  }
  return trimmed;
}

/** The title a session gets from its first prompt: the first non-empty line, cut to 60 characters. */
export function titleFromText(text: string): string {
  const line =
    text
      .split('\n')
      .map((part) => part.trim())
      .find((part) => part !== '') ?? '';
  const chars = [...line];
  return chars.length <= DEFAULT_TITLE_LENGTH ? line : `${chars.slice(0, DEFAULT_TITLE_LENGTH - 1).join('')}…`;
}
