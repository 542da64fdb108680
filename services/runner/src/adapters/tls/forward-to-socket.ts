/**
 * The tls side's RunnerService: each call (its caller already checked: startGrpcServer lets only a client certificate
 * from the relay's CA that names `session` through) is passed on to the commands side's socket as it is, its
 * requests (Exec's stdin) and responses and its end passed on as they come. The caller's cancel (or its dropped
 * connection) cancels the call on the socket, which stops the command. This side runs no command and reads nothing
 * but its certificate.
 */
import {
  credentials,
  status as grpcStatus,
  type ClientReadableStream,
  type sendUnaryData,
  type ServerDuplexStream,
  type ServerUnaryCall,
  type ServerWritableStream,
  type StatusObject,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import {
  RunnerServiceClient,
  type ExecRequest,
  type ExecResponse,
  type LocateClisRequest,
  type LocateClisResponse,
  type RunCommandRequest,
  type RunCommandResponse,
} from '@relay/proto/relay/runner/v1/runner_service';
import { MAX_MESSAGE_BYTES } from '@relay/rpc';
import type { Logger } from '@relay/telemetry';

export interface SocketForwarder {
  implementation: UntypedServiceImplementation;
  close(): void;
}

/** Passes RunCommand, Exec and LocateClis calls on to the commands side at `socketPath`. */
export function forwardToSocket(socketPath: string, logger: Logger): SocketForwarder {
  const client = new RunnerServiceClient(`unix:${socketPath}`, credentials.createInsecure(), {
    'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
    'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
  });
  const runCommand = (call: ServerWritableStream<RunCommandRequest, RunCommandResponse>): void => {
    passBack(client.runCommand(call.request), call, logger);
  };
  const exec = (call: ServerDuplexStream<ExecRequest, ExecResponse>): void => {
    const upstream = client.exec();
    call.on('data', (request: ExecRequest) => upstream.write(request));
    call.once('end', () => upstream.end());
    // A caller's broken stream is its call's end: cancelled below.
    call.on('error', () => undefined);
    passBack(upstream, call, logger);
  };
  // LocateClis (a unary call): its answer or its status passed back as it is.
  const locateClis = (call: ServerUnaryCall<LocateClisRequest, LocateClisResponse>, callback: sendUnaryData<LocateClisResponse>): void => {
    const upstream = client.locateClis(call.request, (error, response) => callback(error, response));
    call.once('cancelled', () => upstream.cancel());
  };
  return { implementation: { runCommand, exec, locateClis }, close: () => client.close() };
}

/** What both kinds of call (RunCommand's and Exec's) give their responses to. */
interface ResponseSink<Res> {
  readonly cancelled: boolean;
  write(response: Res): boolean;
  end(): void;
  once(event: 'cancelled' | 'drain', listener: () => void): unknown;
  emit(event: 'error', status: Partial<StatusObject>): boolean;
  getPath(): string;
}

/** The socket's responses and status passed back to the caller; the caller's cancel cancels the socket's call. */
function passBack<Res>(upstream: ClientReadableStream<Res>, call: ResponseSink<Res>, logger: Logger): void {
  call.once('cancelled', () => upstream.cancel());
  upstream.on('data', (response: Res) => {
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
    logger.warn({ code: status.code, details: status.details, method: call.getPath() }, 'a call failed on the commands side');
    call.emit('error', { code: status.code, details: status.details, metadata: status.metadata });
  });
}
