import type { ErrorCode } from '@relay/errors';
import { modelRefused, SessionErrorCode } from '../errors.ts';
import type { ProviderFamily, ProviderInfo } from './provider-catalogue.ts';
import { nothingDone, type ModelAction } from '../sessions/session-settings.ts';

/** The model that will run, and what the agent should know about it ('' when nothing). */
export interface ModelCheck {
  model: string;
  modelNote: string;
}

/** The refusal of a Copilot or Codex session asked for another family's model id: start it with that provider. */
const PROVIDER_REQUIRED: Record<ProviderFamily, ErrorCode> = {
  script: 'SCRIPT_PROVIDER_REQUIRED',
  openai: 'OPENAI_PROVIDER_REQUIRED',
  claude: 'CLAUDE_PROVIDER_REQUIRED',
  copilot: 'COPILOT_PROVIDER_REQUIRED',
  codex: 'CODEX_PROVIDER_REQUIRED',
  deepseek: 'DEEPSEEK_PROVIDER_REQUIRED',
  image: 'OPENAI_IMAGE_PROVIDER_REQUIRED',
  acp: 'ACP_PROVIDER_REQUIRED',
};

/**
 * The families that refuse another family's model id by name, with the code they answer when it is not for
 * create_session (the spec's Copilot rules; Codex, whose ids other providers list too, alike). A session of theirs
 * never moves to another provider because of its model name.
 */
const FOREIGN_ID_REFUSALS: Partial<Record<ProviderFamily, ErrorCode>> = {
  copilot: SessionErrorCode.COPILOT_MODEL_UNAVAILABLE,
  codex: SessionErrorCode.UNKNOWN_MODEL,
};

/** The most close matches a refusal suggests. */
const MAX_SUGGESTIONS = 3;

/**
 * Checks a model id against the provider's list ("Which models are accepted"), before anything is created
 * or sent. An id differing only in case runs as the listed one (modelNote says so); an unknown list lets the
 * id go on unchecked (modelNote says that too). Copilot refuses another provider's id with
 * COPILOT_MODEL_UNAVAILABLE (Codex with REMOTE_RELAY_UNKNOWN_MODEL), or in create_session with the code of the one
 * other provider family listing it.
 */
export function checkModel(input: {
  providers: readonly ProviderInfo[];
  provider: ProviderInfo;
  model: string;
  relayName: string;
  action: ModelAction;
}): ModelCheck {
  const { provider, model, relayName, action } = input;
  if (provider.models.includes(model)) return { model, modelNote: '' };
  if (!provider.modelsKnown) {
    return {
      model,
      modelNote: `The model list of ${provider.name} is not known on relay "${relayName}" yet, so '${model}' goes on unchecked.`,
    };
  }
  const sameButCase = provider.models.find((id) => id.toLowerCase() === model.toLowerCase());
  if (sameButCase !== undefined) {
    return { model: sameButCase, modelNote: `'${model}' runs as '${sameButCase}', the id ${provider.name} lists.` };
  }

  const suggestions = suggestModels(model, provider.models);
  const details = { suggestions, models: provider.models };
  const didYouMean = suggestions.length === 0 ? '' : ` did you mean ${suggestions.map((id) => `'${id}'`).join(' or ')}?`;
  const validIds = `Valid ids: ${provider.models.join(', ')}.`;

  const foreignIdCode = FOREIGN_ID_REFUSALS[provider.family];
  if (foreignIdCode !== undefined) {
    const listedBy = input.providers.filter((other) => other.family !== provider.family && other.models.some((id) => id.toLowerCase() === model.toLowerCase()));
    const families = [...new Set(listedBy.map((other) => other.family))];
    if (action === 'create' && families.length === 1) {
      const ids = listedBy.map((other) => other.id);
      const idStyle = provider.family === 'copilot' ? ` (Copilot ids use dots${suggestions.length === 0 ? '' : `, e.g. '${suggestions[0]}'`})` : '';
      return refuse(
        PROVIDER_REQUIRED[families[0]!],
        `'${model}' is a model id of ${listedBy[0]!.name}, not of ${provider.name} on relay "${relayName}"${idStyle}. ` +
          `Start it with provider ${ids.map((id) => `"${id}"`).join(' or ')}, or pick a ${provider.name} id. ${validIds} ${nothingDone(action)}`,
        { ...details, providers: ids },
      );
    }
    if (listedBy.length > 0) {
      return refuse(
        foreignIdCode,
        `${provider.name} on relay "${relayName}" does not run '${model}', another provider's id;${didYouMean || ' it has no close match.'} ${validIds} ${nothingDone(action)}`,
        details,
      );
    }
  }
  return refuse(
    SessionErrorCode.UNKNOWN_MODEL,
    `Unknown model '${model}' for ${provider.name} on relay "${relayName}"${didYouMean ? `;${didYouMean}` : '.'} ${validIds} ${nothingDone(action)}`,
    details,
  );
}

function refuse(code: ErrorCode, message: string, details: Record<string, unknown>): never {
  throw modelRefused(code, message, details);
}

/**
 * The listed ids closest to an unknown one: first those equal once case, dots, dashes and underscores are
 * normalised (gpt-5-4 → gpt-5.4), then those within a small edit distance, nearest first.
 */
export function suggestModels(model: string, models: readonly string[]): string[] {
  const asked = normaliseModelId(model);
  const limit = Math.max(2, Math.floor(asked.length / 6));
  return models
    .map((id, index) => ({ id, index, distance: editDistance(asked, normaliseModelId(id)) }))
    .filter((candidate) => candidate.distance <= limit)
    .sort((a, b) => a.distance - b.distance || a.index - b.index)
    .slice(0, MAX_SUGGESTIONS)
    .map((candidate) => candidate.id);
}

/** Lower case, with dots, underscores and spaces as dashes: the spellings of one id compare equal. */
export function normaliseModelId(id: string): string {
  return id
    .trim()
    .toLowerCase()
    .replace(/[._\s]+/g, '-');
}

/** Levenshtein distance. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length]!;
}
