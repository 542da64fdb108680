import type { Linter, Rule } from 'eslint';

/** The relay/layering rule: who may import what inside a service (STYLE.md). */
export declare const layering: Rule.RuleModule;

declare const config: Linter.Config[];
export default config;
