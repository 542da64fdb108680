import { setFlagsFromString } from 'node:v8';

/**
 * Has V8 compile WebAssembly with its baseline compiler (Liftoff) only. Prisma's query compiler is a WebAssembly
 * module of about 3 MB: V8 also compiled it with its optimising compiler, which held about 45 MB of resident memory
 * per service and cost half a second of CPU around the first query, and saved no measurable CPU per query
 * (bench/history.md, "What held the memory"). Call it before the first Prisma query; it changes nothing already compiled.
 */
export function compileWasmBaselineOnly(): void {
  setFlagsFromString('--liftoff-only');
}
