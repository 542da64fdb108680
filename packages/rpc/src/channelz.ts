import type { ChannelOptions } from '@grpc/grpc-js';

/**
 * grpc-js keeps channelz's counters and traces for every channel, subchannel, server and socket, updated on every
 * call, unless told not to. The relay serves no channelz (no admin service asks for them), so they would be work on
 * every call for nothing; every relay client and server turns them off.
 */
export const WITHOUT_CHANNELZ: ChannelOptions = { 'grpc.enable_channelz': 0 };
