import type { ChannelOptions } from '@grpc/grpc-js';

/**
 * The largest message a relay service sends or accepts: 4 MiB, grpc-js's own receive default, made the send
 * limit too, on servers and clients alike. Relay messages are text (conversations, task output, events) far
 * below it; one above it fails as RESOURCE_EXHAUSTED where it is sent instead of being buffered and then
 * refused by the receiver.
 */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

export const MESSAGE_LIMITS: ChannelOptions = {
  'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
  'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
};
