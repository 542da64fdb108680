/**
 * What a turn on an OpenAI-compatible endpoint cost. Such endpoints report tokens only, so the relay prices
 * them itself from the per-model prices it is configured with; without a price the cost is not known (null),
 * never a made-up 0.
 */

/** A model's list price, in US dollars per million tokens. */
export interface ModelPrice {
  inputUsdPerMTok: number;
  outputUsdPerMTok: number;
  /** Input tokens the endpoint served from its prompt cache; absent: they cost as much as other input. */
  cachedInputUsdPerMTok?: number | undefined;
}

/** The tokens a turn used, as the endpoint reported them. */
export interface TokensUsed {
  /** All input tokens, the cached ones included (as prompt_tokens counts them). */
  inputTokens: number;
  outputTokens: number;
  /** The part of inputTokens served from the prompt cache; absent when the endpoint does not say. */
  cachedInputTokens?: number | undefined;
}

const PER_MTOK = 1_000_000;

/** The turn's cost in US dollars at `price`; null when there is no price for its model (cost not reported). */
export function turnCostUsd(used: TokensUsed, price: ModelPrice | undefined): number | null {
  if (price === undefined) return null;
  const cached = Math.min(Math.max(used.cachedInputTokens ?? 0, 0), used.inputTokens);
  const uncached = used.inputTokens - cached;
  const usd = uncached * price.inputUsdPerMTok + cached * (price.cachedInputUsdPerMTok ?? price.inputUsdPerMTok) + used.outputTokens * price.outputUsdPerMTok;
  return usd / PER_MTOK;
}
