import { describe, expect, it } from 'vitest';
import { turnCostUsd } from '../../src/domain/usage/turn-cost.ts';

const deepseekChat = { inputUsdPerMTok: 0.27, outputUsdPerMTok: 1.1, cachedInputUsdPerMTok: 0.07 };

describe('turnCostUsd', () => {
  it('prices input and output tokens per million', () => {
    expect(turnCostUsd({ inputTokens: 1_000_000, outputTokens: 0 }, deepseekChat)).toBeCloseTo(0.27, 12);
    expect(turnCostUsd({ inputTokens: 2_000, outputTokens: 500 }, deepseekChat)).toBeCloseTo((2_000 * 0.27 + 500 * 1.1) / 1e6, 12);
  });

  it('prices cached input at the cached price, and at the input price when the model has none', () => {
    expect(turnCostUsd({ inputTokens: 10_000, outputTokens: 0, cachedInputTokens: 8_000 }, deepseekChat)).toBeCloseTo((2_000 * 0.27 + 8_000 * 0.07) / 1e6, 12);
    expect(turnCostUsd({ inputTokens: 10_000, outputTokens: 0, cachedInputTokens: 8_000 }, { inputUsdPerMTok: 3, outputUsdPerMTok: 15 })).toBeCloseTo(0.03, 12);
  });

  it('never counts more cached tokens than input tokens', () => {
    expect(turnCostUsd({ inputTokens: 100, outputTokens: 0, cachedInputTokens: 500 }, deepseekChat)).toBeCloseTo((100 * 0.07) / 1e6, 12);
  });

  it('is 0 for a free model and for no tokens, and null (not reported) without a price', () => {
    expect(turnCostUsd({ inputTokens: 5_000, outputTokens: 5_000 }, { inputUsdPerMTok: 0, outputUsdPerMTok: 0 })).toBe(0);
    expect(turnCostUsd({ inputTokens: 0, outputTokens: 0 }, deepseekChat)).toBe(0);
    expect(turnCostUsd({ inputTokens: 5_000, outputTokens: 5_000 }, undefined)).toBeNull();
  });
});
