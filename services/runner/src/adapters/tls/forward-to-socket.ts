/**
 * The tls side's RunnerService: each call (its caller already checked: startGrpcServer lets only a client certificate
 * from the relay's CA that names `session` through) is passed on to the commands side's socket as it is, its
 * responses and its end passed back as they come. The caller's cancel (or its dropped connection) cancels the call
 * on the socket, which stops the command. This side runs no command and reads nothing but its certificate.
 */
import { credentials, status as grpcStatus, type ServerWritableStream, type StatusObject, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { RunnerServiceClient, type RunCommandRequest, type RunCommandResponse } from '@relay/proto/relay/runner/v1/runner_service';
import { MAX_MESSAGE_BYTES } from '@relay/rpc';
import type { Logger } from '@relay/telemetry';

export interface SocketForwarder {
  implementation: UntypedServiceImplementation;
  close(): void;
}

/** Passes RunCommand calls on to the commands side at `socketPath`. */
export function forwardToSocket(socketPath: string, logger: Logger): SocketForwarder {
  const client = new RunnerServiceClient(`unix:${socketPath}`, credentials.createInsecure(), {
    'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
    'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
  });
  const runCommand = (call: ServerWritableStream<RunCommandRequest, RunCommandResponse>): void => {
    const upstream = client.runCommand(call.request);
    call.once('cancelled', () => upstream.cancel());
    upstream.on('data', (response: RunCommandResponse) => {
      // Backpressure: the caller reads slower than the command writes, so the socket's side waits for it.
      if (!call.write(response)) {
        upstream.pause();
        call.once('drain', () => upstream.resume());
      }
    });
    // The status decides how the call ends; an OK one once every response is passed on.
    upstream.on('error', () => undefined);
    upstream.once('status', (status: StatusObject) => {
      if (call.cancelled) return;
      if (status.code === grpcStatus.OK) {
        if (upstream.readableEnded) call.end();
        else upstream.once('end', () => call.end());
        return;
      }
      logger.warn({ code: status.code, details: status.details }, 'RunCommand failed on the commands side');
      call.emit('error', { code: status.code, details: status.details, metadata: status.metadata });
    });
  };
  return { implementation: { runCommand }, close: () => client.close() };
}
