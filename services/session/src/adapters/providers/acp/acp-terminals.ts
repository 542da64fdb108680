/**
 * The terminals an ACP agent asks the relay for (terminal/create …/release): each command runs in the relay's sandbox
 * (bubblewrap, or the command runner as the session's user), confined to the session's folder, with the command
 * environment (no secret of the relay's or the agent's) and no stdin.
 */
import { randomUUID } from 'node:crypto';
import type { CliSandbox, SandboxedCli } from '../../../app/tasks/cli-sandbox.ts';

/** The output an agent may hold of one terminal by default (ACP: the client picks when outputByteLimit is unset). */
const DEFAULT_OUTPUT_BYTES = 1_000_000;

interface Terminal {
  child: SandboxedCli;
  output: string;
  truncated: boolean;
  limit: number;
  exit: Promise<{ exitCode: number | null; signal: string | null }>;
  exited: { exitCode: number | null; signal: string | null } | undefined;
}

/** One turn's terminals; killAll when the turn ends. */
export class AcpTerminals {
  readonly #terminals = new Map<string, Terminal>();
  readonly #sandbox: CliSandbox;
  readonly #env: Readonly<Record<string, string>>;
  readonly #sessionId: string;

  constructor(sandbox: CliSandbox, env: Readonly<Record<string, string>>, sessionId: string) {
    this.#sandbox = sandbox;
    this.#env = env;
    this.#sessionId = sessionId;
  }

  /** Starts `command` (with `args`, else through sh -c) in `folder`, inside the sandbox; its id. */
  create(input: {
    folder: string;
    command: string;
    args?: readonly string[] | undefined;
    env?: readonly { name: string; value: string }[] | undefined;
    outputByteLimit?: number | null | undefined;
  }): string {
    const argv = input.args === undefined || input.args.length === 0 ? ['sh', '-c', input.command] : [input.command, ...input.args];
    const env = { ...this.#env, ...Object.fromEntries((input.env ?? []).map((variable) => [variable.name, variable.value])) };
    const child = this.#sandbox.spawn({ sessionId: this.#sessionId, folder: input.folder, argv, env });
    // A terminal's command reads no input.
    child.stdin.end();
    const terminal: Terminal = {
      child,
      output: '',
      truncated: false,
      limit: input.outputByteLimit ?? DEFAULT_OUTPUT_BYTES,
      exited: undefined,
      exit: new Promise((resolve) => {
        child.once('error', () => resolve({ exitCode: null, signal: null }));
        child.once('close', (exitCode, signal) => resolve({ exitCode, signal }));
      }),
    };
    void terminal.exit.then((status) => (terminal.exited = status));
    const append = (chunk: Buffer) => {
      terminal.output += chunk.toString('utf8');
      // Keeps the end: ACP truncates from the beginning.
      if (Buffer.byteLength(terminal.output) > terminal.limit) {
        terminal.output = Buffer.from(terminal.output).subarray(-terminal.limit).toString('utf8');
        terminal.truncated = true;
      }
    };
    child.stdout.on('data', append);
    child.stderr.on('data', append);
    const id = randomUUID();
    this.#terminals.set(id, terminal);
    return id;
  }

  output(id: string): { output: string; truncated: boolean; exitStatus?: { exitCode: number | null; signal: string | null } } {
    const terminal = this.#get(id);
    return { output: terminal.output, truncated: terminal.truncated, ...(terminal.exited === undefined ? {} : { exitStatus: terminal.exited }) };
  }

  async waitForExit(id: string, signal: AbortSignal): Promise<{ exitCode: number | null; signal: string | null }> {
    const terminal = this.#get(id);
    return Promise.race([
      terminal.exit,
      new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true })),
    ]);
  }

  kill(id: string): void {
    this.#get(id).child.kill('SIGKILL');
  }

  release(id: string): void {
    this.#terminals.get(id)?.child.kill('SIGKILL');
    this.#terminals.delete(id);
  }

  killAll(): void {
    for (const id of [...this.#terminals.keys()]) this.release(id);
  }

  #get(id: string): Terminal {
    const terminal = this.#terminals.get(id);
    if (terminal === undefined) throw new Error(`no terminal ${id}`);
    return terminal;
  }
}
