/**
 * relay.runner.v1.RunnerService on the commands side (the unix socket the tls side passes calls on to): decode, run
 * the command, stream its start, output and end. The call's end (the caller cancels it, or its connection drops)
 * stops the command's process group.
 */
import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import type { RunCommandResponse, RunnerServiceServer } from '@relay/proto/relay/runner/v1/runner_service';
import { serveStream } from '@relay/rpc';
import type { Logger } from '@relay/telemetry';
import { runCommand, type RunnerPorts } from '../../app/run-command.ts';

export function runnerGrpc(context: { realWorkspace: string; ports: RunnerPorts; logger: Logger }): UntypedServiceImplementation {
  const { logger } = context;
  return serveStream<RunnerServiceServer>(logger, {
    async *runCommand(request, signal): AsyncIterable<RunCommandResponse> {
      const command = await runCommand(request, context);
      const log = logger.child({ pid: command.pid });
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
    },
  });
}
