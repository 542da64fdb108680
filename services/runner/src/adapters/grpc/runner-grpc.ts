/**
 * relay.runner.v1.RunnerService on the commands side (the unix socket the tls side passes calls on to): decode, run
 * the command, stream its start, output and end. RunCommand's command reads no stdin; Exec's reads the call's. The
 * call's end (the caller cancels it, or its connection drops) stops the command's process group.
 */
import type { handleServerStreamingCall, ServerDuplexStream, UntypedServiceImplementation } from '@grpc/grpc-js';
import { appError } from '@relay/errors';
import type {
  CliProgram as CliProgramMessage,
  ExecRequest,
  ExecResponse,
  LocateClisRequest,
  LocateClisResponse,
  RunCommandRequest,
  RunCommandResponse,
  RunnerServiceServer,
} from '@relay/proto/relay/runner/v1/runner_service';
import { serveStream, serveUnary } from '@relay/rpc';
import type { CliProgram } from '@relay/service/cli-programs';
import type { Logger } from '@relay/telemetry';
import { locateClis } from '../../app/locate-clis.ts';
import { runCommand, type GroupProcess, type RunnerPorts } from '../../app/run-command.ts';

interface RunnerContext {
  realWorkspace: string;
  /** Where the agents' CLIs' packages are found from (the runner's own code). */
  codeFolder: string;
  ports: RunnerPorts;
  logger: Logger;
}

/**
 * Exec as serveStream takes it: its responses streamed, its errors mapped and measured as every stream's. Its
 * requests are the call's own messages (a bidirectional call has no single request), read by the handler.
 */
interface StreamedMethods {
  runCommand: handleServerStreamingCall<RunCommandRequest, RunCommandResponse>;
  exec: handleServerStreamingCall<undefined, ExecResponse>;
}

export function runnerGrpc(context: RunnerContext): UntypedServiceImplementation {
  const { logger } = context;
  const unary = serveUnary<RunnerServiceServer>(logger, {
    async locateClis(request: LocateClisRequest): Promise<LocateClisResponse> {
      const found = locateClis(request.programs.map(cliProgram), context.codeFolder);
      return { locations: found.map((location) => location ?? { path: '', folder: '' }) };
    },
  });
  const streamed = serveStream<StreamedMethods>(logger, {
    async *runCommand(request, signal): AsyncIterable<RunCommandResponse> {
      yield* followCommand(await runCommand(request, context), request, signal, logger);
    },
    async *exec(_none, signal, call): AsyncIterable<ExecResponse> {
      const inputs = (call as unknown as ServerDuplexStream<ExecRequest, ExecResponse>)[Symbol.asyncIterator]() as AsyncIterator<ExecRequest>;
      const first = await inputs.next();
      const start = first.done === true ? undefined : (first.value as ExecRequest).start;
      if (start === undefined) throw appError('REMOTE_RELAY_INVALID_INPUT', 'an Exec call starts with `start`', { details: { field: 'start' } });
      const command = await runCommand(start, { ...context, stdin: true });
      void feedStdin(inputs, command);
      yield* followCommand(command, start, signal, logger);
    },
  });
  return { ...unary, ...streamed };
}

/** A program as LocateClis carries it; REMOTE_RELAY_INVALID_INPUT for one of no kind. */
function cliProgram(message: CliProgramMessage): CliProgram {
  if (message.path !== undefined) return { path: message.path };
  if (message.command !== undefined) return { command: message.command.name, search: message.command.searchPath };
  const found = message.packageFile;
  if (found === undefined) throw appError('REMOTE_RELAY_INVALID_INPUT', 'a program is a path, a command or a package file', { details: { field: 'programs' } });
  return { package: found.package, file: found.file, ...(found.folder === '' ? {} : { folder: found.folder }), via: found.via };
}

/** The call's stdin messages to the command, until `stdin_closed` or the caller's half-close (end of file either way). */
async function feedStdin(inputs: AsyncIterator<ExecRequest>, command: GroupProcess): Promise<void> {
  try {
    for (let next = await inputs.next(); next.done !== true; next = await inputs.next()) {
      const input = next.value as ExecRequest;
      if (input.stdin !== undefined) command.write(input.stdin);
      else if (input.stdinClosed !== undefined) break;
    }
  } catch {
    // The call broke off: its end stops the command.
  }
  command.closeStdin();
}

/** The command's start, output and end as the call's responses; the call's end (or a write that failed) stops it. */
async function* followCommand(command: GroupProcess, request: RunCommandRequest, signal: AbortSignal, logger: Logger): AsyncIterable<RunCommandResponse> {
  const log = logger.child({ pid: command.pid, uid: request.uid });
  log.info({ folder: request.folder, program: request.argv[0] }, 'command started');
  const stop = (): void => {
    log.info('call ended; stopping the command');
    command.stop();
  };
  signal.addEventListener('abort', stop, { once: true });
  try {
    yield { started: { pid: command.pid } };
    for await (const event of command.events()) {
      if ('stdout' in event) yield { stdout: Buffer.from(event.stdout) };
      else if ('stderr' in event) yield { stderr: Buffer.from(event.stderr) };
      else {
        log.info(event.exited, 'command ended');
        yield { exited: { ...(event.exited.exitCode === null ? {} : { exitCode: event.exited.exitCode }), signal: event.exited.signal ?? '' } };
      }
    }
  } finally {
    signal.removeEventListener('abort', stop);
    // Left early (a write failed, the caller went): the command does not run on unseen.
    command.stop();
  }
}
