/**
 * Commands on Kubernetes: each one a relay.runner.v1.RunnerService/RunCommand call to the command runner
 * (docs/adr/0031-command-runner.md), a pod with none of the relay's secrets that mounts the sessions' workspace at the
 * same path. The call goes over mutual TLS with the session service's certificate only (never its token, which would
 * hand the runner the session service's credential). Cancelling the call stops the command's process group there;
 * a dropped connection does too, so a command never outlives the replica that asked for it.
 */
import type { RunnerServiceClient } from '@relay/proto/relay/runner/v1/runner_service';
import { callStream } from '@relay/rpc';
import type { SandboxedCommand, TaskSandbox } from '../../app/tasks/task-sandbox.ts';

export class RunnerSandbox implements TaskSandbox {
  readonly #client: RunnerServiceClient;
  readonly unavailable = undefined;

  /** `client` reaches the runner over mutual TLS (createClient with the service's TLS credentials). */
  constructor(client: RunnerServiceClient) {
    this.#client = client;
  }

  where(folder: string): string {
    return `command runner — runs in ${folder} on the sessions' workspace; no relay secret, token or process`;
  }

  start(input: { folder: string; argv: readonly string[]; env: Readonly<Record<string, string>>; onOutput: (chunk: Uint8Array) => void }): SandboxedCommand {
    const abort = new AbortController();
    let began = false;
    let settle!: { resolve: (value: { localPid: number | null }) => void; reject: (error: Error) => void };
    const started = new Promise<{ localPid: number | null }>((resolve, reject) => (settle = { resolve, reject }));
    const request = { folder: input.folder, argv: [...input.argv], env: { ...input.env } };
    const ended = (async (): Promise<{ exitCode: number | null; signal: string | null; lost?: string }> => {
      try {
        for await (const response of callStream(this.#client, 'runCommand', request, { signal: abort.signal })) {
          if (response.started !== undefined) {
            began = true;
            // Its pid is the runner's: nothing on this machine to end by it after a restart (the call's end ends it).
            settle.resolve({ localPid: null });
          } else if (response.stdout !== undefined) input.onOutput(response.stdout);
          else if (response.stderr !== undefined) input.onOutput(response.stderr);
          else if (response.exited !== undefined) return { exitCode: response.exited.exitCode ?? null, signal: response.exited.signal || null };
        }
        if (!began) settle.reject(new Error('it was stopped before the command runner started it'));
        // Stopped here: the call's cancel ended its process group on the runner.
        return abort.signal.aborted ? { exitCode: null, signal: 'SIGTERM' } : { exitCode: null, signal: null, lost: 'the command runner ended the call without the command\'s end' };
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        if (!began) settle.reject(new Error(`the command runner refused it or could not be reached (${why})`));
        return { exitCode: null, signal: null, lost: `the call to the command runner failed; the command is gone (${why})` };
      }
    })();
    return { started, ended, stop: () => abort.abort() };
  }
}
