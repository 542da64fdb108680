/** The "Agents may" levels a paired relay grants this relay's agents (spec, What a paired relay allows). */

/** An "Agents may" level, lowest first. */
export const AGENT_LEVELS = ['off', 'read', 'read_and_prompt', 'full'] as const;
export type AgentLevelName = (typeof AGENT_LEVELS)[number];
