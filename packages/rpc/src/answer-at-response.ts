import { InterceptingCall, Metadata, status, type Interceptor } from '@grpc/grpc-js';

/**
 * The client interceptor that answers a unary call as soon as its response arrives. grpc-js answers a unary call at
 * its status, and a grpc-js server sends the status only once the response's bytes are written, in a write of their
 * own (Node's HTTP/2 stream ends after its writes completed): each answer reached the caller in two TCP segments, and
 * the caller waited for the second, one more turn of the server's event loop and one more wake-up of its own. A relay
 * service sends a response only for a call its handler answered (serveUnary), with OK after it; a status that follows
 * a response (the connection lost meanwhile, the deadline past) changes nothing the response said, so it is dropped.
 * A status without a response (a refusal) is passed on as before.
 */
export const answerAtResponse: Interceptor = (options, nextCall) => {
  const { requestStream, responseStream } = options.method_definition;
  if (requestStream || responseStream) return new InterceptingCall(nextCall(options));
  return new InterceptingCall(nextCall(options), {
    start: (metadata, caller, next) => {
      let answered = false;
      next(metadata, {
        onReceiveMessage: (message: unknown, pass) => {
          pass(message);
          // grpc-js hands a unary call's listener null for the response of a call that ended without one.
          if (message === null) return;
          answered = true;
          caller.onReceiveStatus({ code: status.OK, details: 'OK', metadata: new Metadata() });
        },
        onReceiveStatus: (received, pass) => {
          if (!answered) pass(received);
        },
      });
    },
  });
};
