/**
 * Every provider this relay knows, in the order relay_info lists them: one definition each (define-provider.ts).
 * A new provider is a folder with its definition, and one line here.
 */
import type { ProviderDefinition } from './define-provider.ts';
import { acpDefinition } from './acp/acp-definition.ts';
import { claudeDefinition } from './claude/claude-definition.ts';
import { claudeCloudDefinition } from './claude-cloud/claude-cloud-definition.ts';
import { codexDefinition } from './codex/codex-definition.ts';
import { copilotDefinition } from './copilot/copilot-definition.ts';
import { deepSeekDefinition } from './deepseek/deepseek-definition.ts';
import { openAIDefinition } from './openai/openai-definition.ts';
import { openAIImageDefinition } from './openai-image/openai-image-definition.ts';
import { scriptDefinition } from './script/script-definition.ts';

export const PROVIDER_DEFINITIONS: readonly ProviderDefinition[] = [
  scriptDefinition,
  openAIDefinition,
  claudeDefinition,
  claudeCloudDefinition,
  copilotDefinition,
  codexDefinition,
  deepSeekDefinition,
  openAIImageDefinition,
  acpDefinition,
];
