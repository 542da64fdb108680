import { describe, expect, it } from 'vitest';
import { checkModel, normaliseModelId, suggestModels } from '../../src/domain/catalogue/check-model.ts';
import { allProviders, provider, refusalOf } from './fixtures.ts';

const providers = await allProviders();
const check = (providerId: string, model: string, action: 'create' | 'send' | 'update' = 'send', list = providers) =>
  checkModel({ providers: list, provider: provider(list, providerId), model, relayName: 'build-box', action });

describe('checkModel', () => {
  it('accepts a listed id as it is, with no note', () => {
    expect(check('copilot', 'gpt-5.4')).toEqual({ model: 'gpt-5.4', modelNote: '' });
    expect(check('claude', 'claude-sonnet-5-5')).toEqual({ model: 'claude-sonnet-5-5', modelNote: '' });
  });

  it("refuses gpt-5-4 on Copilot with the spec's sentence, the close match and the valid ids", () => {
    const error = refusalOf(() => check('copilot', 'gpt-5-4'));
    expect(error.code).toBe('REMOTE_RELAY_UNKNOWN_MODEL');
    expect(error.message).toBe(
      `Unknown model 'gpt-5-4' for Copilot on relay "build-box"; did you mean 'gpt-5.4'? Valid ids: claude-opus-5.5, claude-sonnet-5.5, gpt-5.4, gpt-5.4-mini. Nothing was sent.`,
    );
    expect(error.details).toEqual({ suggestions: ['gpt-5.4'], models: ['claude-opus-5.5', 'claude-sonnet-5.5', 'gpt-5.4', 'gpt-5.4-mini'] });
  });

  it('ends the sentence with what did not happen for each action', () => {
    expect(refusalOf(() => check('copilot', 'gpt-5-4', 'create')).message).toMatch(/Nothing was created\.$/);
    expect(refusalOf(() => check('copilot', 'gpt-5-4', 'update')).message).toMatch(/Nothing was changed\.$/);
  });

  it('says no "did you mean" when nothing is close', () => {
    const error = refusalOf(() => check('script', 'banana'));
    expect(error.message).toBe(`Unknown model 'banana' for Script on relay "build-box". Valid ids: script-1. Nothing was sent.`);
    expect(error.details['suggestions']).toEqual([]);
  });

  it("refuses Claude's dashed id on Copilot in create_session with the code of the one provider family listing it", () => {
    const error = refusalOf(() => check('copilot', 'claude-opus-5-5', 'create'));
    expect(error.code).toBe('CLAUDE_PROVIDER_REQUIRED');
    expect(error.details).toMatchObject({ suggestions: ['claude-opus-5.5'], providers: ['claude', 'claude-api', 'claude-cloud'] });
    expect(error.message).toContain("'claude-opus-5.5'");
    expect(error.message).toMatch(/Nothing was created\.$/);
  });

  it("refuses another provider's id on Copilot in send with COPILOT_MODEL_UNAVAILABLE and the close match", () => {
    const error = refusalOf(() => check('copilot', 'claude-opus-5-5', 'send'));
    expect(error.code).toBe('COPILOT_MODEL_UNAVAILABLE');
    expect(error.details['suggestions']).toEqual(['claude-opus-5.5']);
    expect(error.message).toContain("did you mean 'claude-opus-5.5'?");
  });

  it('names the DeepSeek family when only DeepSeek lists the id', () => {
    expect(refusalOf(() => check('copilot', 'deepseek-chat', 'create')).code).toBe('DEEPSEEK_PROVIDER_REQUIRED');
  });

  it('answers COPILOT_MODEL_UNAVAILABLE in create_session when two provider families list the id', () => {
    const list = providers.map((known) => (known.id === 'openai' ? { ...known, models: ['claude-opus-5-5'], modelsKnown: true } : known));
    expect(refusalOf(() => check('copilot', 'claude-opus-5-5', 'create', list)).code).toBe('COPILOT_MODEL_UNAVAILABLE');
  });

  describe('Codex, whose ids other providers list too', () => {
    const list = providers.map((known) => (known.id === 'codex' ? { ...known, models: ['gpt-5.4', 'gpt-5.5'], modelsKnown: true } : known));

    it('accepts its own ids, Copilot listing one of them too', () => {
      expect(check('codex', 'gpt-5.4', 'create', list)).toEqual({ model: 'gpt-5.4', modelNote: '' });
    });

    it("refuses another family's id in create_session with that family's code, in Codex's words", () => {
      const error = refusalOf(() => check('codex', 'claude-sonnet-5-5', 'create', list));
      expect(error.code).toBe('CLAUDE_PROVIDER_REQUIRED');
      expect(error.message).toMatch(/^'claude-sonnet-5-5' is a model id of Claude, not of Codex on relay "build-box"\. Start it with provider "claude" or /);
      expect(error.message).not.toContain('dots');
      expect(refusalOf(() => check('codex', 'claude-opus-5.5', 'create', list)).code).toBe('COPILOT_PROVIDER_REQUIRED');
    });

    it("refuses another family's id in send as an unknown model, saying whose it is", () => {
      const error = refusalOf(() => check('codex', 'gpt-5.4-mini', 'send', list));
      expect(error.code).toBe('REMOTE_RELAY_UNKNOWN_MODEL');
      expect(error.message).toBe(
        `Codex on relay "build-box" does not run 'gpt-5.4-mini', another provider's id; it has no close match. Valid ids: gpt-5.4, gpt-5.5. Nothing was sent.`,
      );
    });

    it('is the family Copilot names for an id only Codex lists', () => {
      expect(refusalOf(() => check('copilot', 'gpt-5.5', 'create', list)).code).toBe('CODEX_PROVIDER_REQUIRED');
    });
  });

  it('lets a model go on unchecked, with a note, while the provider has no list', () => {
    const result = check('openai', 'llama3.3:70b');
    expect(result.model).toBe('llama3.3:70b');
    expect(result.modelNote).toContain('goes on unchecked');
  });

  it('runs an id differing only in case as the listed one and says so', () => {
    expect(check('claude', 'Claude-Opus-5-5')).toEqual({
      model: 'claude-opus-5-5',
      modelNote: "'Claude-Opus-5-5' runs as 'claude-opus-5-5', the id Claude lists.",
    });
  });

  it('refuses a dotted id on Claude and suggests the dashed one', () => {
    const error = refusalOf(() => check('claude', 'claude-opus-5.5'));
    expect(error.code).toBe('REMOTE_RELAY_UNKNOWN_MODEL');
    expect(error.details['suggestions']).toEqual(['claude-opus-5-5']);
  });
});

describe('suggestModels', () => {
  it('puts equal-once-normalised ids first, then near typos, at most three', () => {
    expect(suggestModels('claude-sonet-5-5', ['claude-opus-5-5', 'claude-sonnet-5-5', 'claude-haiku-5-5'])).toEqual(['claude-sonnet-5-5']);
    expect(suggestModels('GPT_5.4', ['gpt-5.4-mini', 'gpt-5.4'])).toEqual(['gpt-5.4']);
    expect(suggestModels('m-1', ['m-1a', 'm-1b', 'm-1c', 'm-1d'])).toHaveLength(3);
  });

  it('suggests nothing far away', () => {
    expect(suggestModels('gpt-4o', ['claude-opus-5-5'])).toEqual([]);
  });

  it('normalises case, dots, underscores and spaces to one spelling', () => {
    expect(normaliseModelId(' GPT_5.4 mini ')).toBe('gpt-5-4-mini');
  });
});
