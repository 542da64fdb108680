import type { handleServerStreamingCall, handleUnaryCall, UntypedServiceImplementation } from '@grpc/grpc-js';
import { describe, expectTypeOf, it } from 'vitest';
import type { StreamHandler, StreamHandlers, UnaryHandler, UnaryHandlers } from '../src/index.ts';

// The shape ts-proto generates for a service with both kinds of methods.
interface MixedServer extends UntypedServiceImplementation {
  get: handleUnaryCall<{ id: string }, { name: string }>;
  wait: handleServerStreamingCall<{ id: string }, { event: string }>;
}

describe('handler types', () => {
  it('split a generated server interface into its unary and its streaming methods', () => {
    expectTypeOf<UnaryHandlers<MixedServer>>().toEqualTypeOf<{ get: UnaryHandler<{ id: string }, { name: string }> }>();
    expectTypeOf<StreamHandlers<MixedServer>>().toEqualTypeOf<{ wait: StreamHandler<{ id: string }, { event: string }> }>();
  });
});
