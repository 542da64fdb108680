/**
 * An ACP agent's file reads and writes (fs/read_text_file, fs/write_text_file), done in the session's sandbox as the
 * agent's own commands are: `cat` there reads the file, `cat >` writes it. So the kernel decides what they reach (the
 * session's folder, never a masked .relay folder, never another user's folder on the command runner), not the path
 * check before them, and a file written is its user's like any other they make.
 */
import type { CliSandbox } from '../../../app/tasks/cli-sandbox.ts';

/** What a file operation in the sandbox ended with. */
interface Done {
  ok: boolean;
  output: string;
  /** Why it failed: its stderr, or why it could not start. */
  error: string;
}

/** Where it runs: the session (its user's sandbox) and its folder. */
export interface FileTarget {
  sandbox: CliSandbox;
  sessionId: string | undefined;
  folder: string;
  env: Readonly<Record<string, string>>;
}

/** The file's text, or why it could not be read there. */
export function readInSandbox(target: FileTarget, path: string): Promise<Done> {
  return inSandbox(target, ['cat', '--', path], undefined);
}

/** Writes `content` to the file (its folders made), or says why it could not there. */
export function writeInSandbox(target: FileTarget, path: string, content: string): Promise<Done> {
  return inSandbox(target, ['sh', '-c', 'mkdir -p -- "$(dirname -- "$1")" && cat > "$1"', 'sh', path], content);
}

function inSandbox(target: FileTarget, argv: string[], stdin: string | undefined): Promise<Done> {
  return new Promise((resolve) => {
    const child = target.sandbox.spawn({ sessionId: target.sessionId, folder: target.folder, argv, env: target.env });
    const output: Buffer[] = [];
    const errors: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => errors.push(chunk));
    child.stdin.on('error', () => undefined);
    child.stdin.end(stdin);
    child.once('error', (error: Error) => resolve({ ok: false, output: '', error: error.message }));
    child.once('close', (code: number | null) =>
      resolve({ ok: code === 0, output: Buffer.concat(output).toString('utf8'), error: Buffer.concat(errors).toString('utf8').trim() }),
    );
  });
}
