/**
 * Commands and agents' CLIs on Kubernetes: each one a relay.runner.v1.RunnerService call to the command runner
 * (docs/adr/0031-command-runner.md), a pod with none of the relay's secrets that mounts the sessions' workspace at the
 * same path, where it runs as its session's user's own OS user (docs/adr/0035-a-sandbox-user-per-relay-user.md): a
 * background command is a RunCommand call, a CLI an Exec call that carries its stdin too. The call goes over mutual
 * TLS with the session service's certificate only (never its token, which would hand the runner the session
 * service's credential). Cancelling the call stops the process group there; a dropped connection does too, so
 * nothing outlives the replica that asked for it.
 */
import { EventEmitter } from 'node:events';
import { PassThrough, Writable } from 'node:stream';
import { Metadata, type ClientDuplexStream } from '@grpc/grpc-js';
import type {
  CliProgram as CliProgramMessage,
  ExecRequest,
  ExecResponse,
  RunCommandRequest,
  RunnerServiceClient,
} from '@relay/proto/relay/runner/v1/runner_service';
import { callStream, callUnary, retriedOnTransportFailure } from '@relay/rpc';
import type { CliLocation, CliProgram, CliSandbox, SandboxedCli } from '../../app/tasks/cli-sandbox.ts';
import type { SandboxedCommand, TaskSandbox } from '../../app/tasks/task-sandbox.ts';

/** How long each ask of where the CLIs are waits for the runner to be up (retried on a transport failure: about a minute in all). */
const LOCATE_DEADLINE_MS = 5_000;

/** The sandbox user (OS uid on the runner) of a session's user. */
export type SandboxUids = (sessionId: string) => Promise<number>;

export class RunnerSandbox implements TaskSandbox, CliSandbox {
  readonly #client: RunnerServiceClient;
  readonly #uids: SandboxUids;
  readonly unavailable = undefined;
  readonly machine = 'on the command runner';

  /** `client` reaches the runner over mutual TLS (createClient with the service's TLS credentials). */
  constructor(client: RunnerServiceClient, uids: SandboxUids) {
    this.#client = client;
    this.#uids = uids;
  }

  /**
   * Asked of the runner (LocateClis), which looks on its own filesystem: the CLIs are its image's, not the session
   * service's. It may start after this service: each ask waits for it to be up, and one that finds no runner is made
   * again (retriedOnTransportFailure, the asks about a minute in all); then it rejects.
   */
  async locate(programs: readonly CliProgram[]): Promise<(CliLocation | undefined)[]> {
    if (programs.length === 0) return [];
    const request = { programs: programs.map(programMessage) };
    const answer = await retriedOnTransportFailure(() => {
      const metadata = new Metadata();
      metadata.setOptions({ waitForReady: true });
      return callUnary(this.#client, 'locateClis', request, { deadlineMs: LOCATE_DEADLINE_MS, metadata });
    });
    if (answer.locations.length !== programs.length)
      throw new Error(`the command runner answered ${answer.locations.length} locations for ${programs.length} CLIs`);
    return answer.locations.map((location) => (location.path === '' ? undefined : { path: location.path, folder: location.folder }));
  }

  where(folder: string): string {
    return `command runner — runs in ${folder} on the sessions' workspace as your own sandbox user; no relay secret, token or process, no other user's folder`;
  }

  start(input: {
    sessionId: string;
    folder: string;
    argv: readonly string[];
    env: Readonly<Record<string, string>>;
    onOutput: (chunk: Uint8Array) => void;
  }): SandboxedCommand {
    const abort = new AbortController();
    let began = false;
    let settle!: { resolve: (value: { localPid: number | null }) => void; reject: (error: Error) => void };
    const started = new Promise<{ localPid: number | null }>((resolve, reject) => (settle = { resolve, reject }));
    const ended = (async (): Promise<{ exitCode: number | null; signal: string | null; lost?: string }> => {
      try {
        const request = await this.#request(input);
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
        return abort.signal.aborted
          ? { exitCode: null, signal: 'SIGTERM' }
          : { exitCode: null, signal: null, lost: "the command runner ended the call without the command's end" };
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        if (!began) settle.reject(new Error(`the command runner refused it or could not be reached (${why})`));
        return { exitCode: null, signal: null, lost: `the call to the command runner failed; the command is gone (${why})` };
      }
    })();
    return { started, ended, stop: () => abort.abort() };
  }

  /**
   * The CLI's program must lie at the same path in the runner's image (`readOnly` is bubblewrap's: the runner has
   * every path of its image). Home files it cannot give: a CLI that needs them does not start.
   */
  spawn(input: {
    sessionId: string | undefined;
    folder: string;
    argv: readonly string[];
    env: Readonly<Record<string, string | undefined>>;
    homeFiles?: Readonly<Record<string, string>>;
  }): SandboxedCli {
    const env = Object.fromEntries(Object.entries(input.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
    const { sessionId } = input;
    if (input.homeFiles !== undefined && Object.keys(input.homeFiles).length > 0)
      return new RunnerCli(
        this.#client.exec(),
        Promise.reject(new Error("the command runner cannot put files in an agent's home (homeFiles): what the agent needs must be in the runner's image")),
      );
    // Each process runs as a user's: one that is no session's (an agent's model discovery) has none to run as.
    if (sessionId === undefined)
      return new RunnerCli(this.#client.exec(), Promise.reject(new Error('the command runner runs a process only for a session, as its user')));
    return new RunnerCli(this.#client.exec(), this.#request({ ...input, sessionId, env }));
  }

  async #request(input: { sessionId: string; folder: string; argv: readonly string[]; env: Readonly<Record<string, string>> }): Promise<RunCommandRequest> {
    return { folder: input.folder, argv: [...input.argv], env: { ...input.env }, uid: await this.#uids(input.sessionId) };
  }
}

/** A program as LocateClis carries it. */
function programMessage(program: CliProgram): CliProgramMessage {
  if ('path' in program) return { path: program.path };
  if ('command' in program) return { command: { name: program.command, searchPath: program.search } };
  return { packageFile: { package: program.package, file: program.file, folder: program.folder ?? '', via: [...(program.via ?? [])] } };
}

/** A CLI on the runner as a child process: its stdio and its end carried by one Exec call. */
class RunnerCli extends EventEmitter implements SandboxedCli {
  readonly stdin: Writable;
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  killed = false;
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  readonly #call: ClientDuplexStream<ExecRequest, ExecResponse>;
  #began = false;
  #ended = false;

  constructor(call: ClientDuplexStream<ExecRequest, ExecResponse>, request: Promise<RunCommandRequest>) {
    super();
    this.#call = call;
    const sent = request.then((start) => void call.write({ start }));
    // Its stdin goes after `start`, in order (a Writable hands over one chunk at a time). Once it ended, or when it
    // never started (the 'error' event says why), what is still written goes nowhere, as to a closed pipe.
    const send = (input: ExecRequest, done: () => void): void =>
      void sent.then(
        () => (this.#ended ? done() : call.write(input, () => done())),
        () => done(),
      );
    this.stdin = new Writable({
      write: (chunk: Buffer, _encoding, done) => send({ stdin: chunk }, done),
      final: (done) => send({ stdinClosed: {} }, done),
    });
    sent.catch((error: unknown) => {
      call.cancel();
      this.#fail(error);
    });
    call.on('data', (response: ExecResponse) => {
      if (response.started !== undefined) {
        this.#began = true;
        this.emit('spawn');
      } else if (response.stdout !== undefined) this.stdout.write(response.stdout);
      else if (response.stderr !== undefined) this.stderr.write(response.stderr);
      else if (response.exited !== undefined) this.#end(response.exited.exitCode ?? null, (response.exited.signal || null) as NodeJS.Signals | null);
    });
    call.on('error', (error: Error) => (this.#began || this.killed ? this.#end(null, 'SIGKILL') : this.#fail(error)));
    call.on('end', () => this.#end(null, 'SIGKILL'));
  }

  kill(): boolean {
    if (this.#ended) return false;
    this.killed = true;
    // The call's cancel ends its process group on the runner.
    this.#call.cancel();
    return true;
  }

  #fail(error: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    this.stdout.end();
    this.stderr.end();
    this.emit('error', new Error(`the command runner refused it or could not be reached (${error instanceof Error ? error.message : String(error)})`));
    this.emit('close', null, null);
  }

  #end(exitCode: number | null, signal: NodeJS.Signals | null): void {
    if (this.#ended) return;
    this.#ended = true;
    this.exitCode = exitCode;
    this.signalCode = exitCode === null ? signal : null;
    this.stdout.end();
    this.stderr.end();
    this.emit('exit', this.exitCode, this.signalCode);
    this.emit('close', this.exitCode, this.signalCode);
  }
}
