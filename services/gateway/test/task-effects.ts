/** A call's effects as an MCP task's record keeps them (mcp-task-runner.ts), in memory: each effect's outcome (JSON) once made. */
import type { CallEffects } from '../src/app/relay-tool/made-once.ts';

/** `recorded` is the task's record; the same record passed again is a replica taking the task over. */
export function taskEffects(recorded: Record<string, unknown> = {}): { recorded: Record<string, unknown>; effects: CallEffects } {
  const effects: CallEffects = {
    made: (name, codec) => (name in recorded ? codec.fromJSON(recorded[name]) : undefined),
    once: async (name, make, codec) => {
      if (name in recorded) return codec.fromJSON(recorded[name]);
      const outcome = await make();
      recorded[name] = codec.toJSON(outcome);
      return outcome;
    },
  };
  return { recorded, effects };
}
