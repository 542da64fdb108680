import { Metadata, status } from '@grpc/grpc-js';
import { AppError, INTERNAL_CODE, type ErrorKind } from '@relay/errors';
import { describe, expect, it } from 'vitest';
import { CODE_METADATA_KEY, DETAILS_METADATA_KEY, fromGrpcError, retriedOnTransportFailure, STATUS_BY_KIND, toGrpcStatus } from '../src/grpc-error.ts';

const kinds: [ErrorKind, status][] = [
  ['invalid_argument', status.INVALID_ARGUMENT],
  ['not_found', status.NOT_FOUND],
  ['already_exists', status.ALREADY_EXISTS],
  ['failed_precondition', status.FAILED_PRECONDITION],
  ['permission_denied', status.PERMISSION_DENIED],
  ['unauthenticated', status.UNAUTHENTICATED],
  ['resource_exhausted', status.RESOURCE_EXHAUSTED],
  ['unavailable', status.UNAVAILABLE],
  ['deadline_exceeded', status.DEADLINE_EXCEEDED],
  ['aborted', status.ABORTED],
  ['unimplemented', status.UNIMPLEMENTED],
  ['internal', status.INTERNAL],
];

function transportError(code: status, details: string): { code: status; details: string; metadata: Metadata } {
  return { code, details, metadata: new Metadata() };
}

describe('the kind ↔ status table', () => {
  it('covers every kind, one status each', () => {
    expect(Object.entries(STATUS_BY_KIND).sort()).toEqual(kinds.sort());
  });

  it.each(kinds)('round-trips %s through %s with code, message and details', (kind, code) => {
    const sent = toGrpcStatus(new AppError('REMOTE_RELAY_TEST', kind, 'a refusal', { details: { groups: ['a', 'b'] } }));
    expect(sent.code).toBe(code);
    expect(sent.metadata.get(CODE_METADATA_KEY)).toEqual(['REMOTE_RELAY_TEST']);

    const received = fromGrpcError(sent);
    expect(received).toBeInstanceOf(AppError);
    expect(received).toMatchObject({ code: 'REMOTE_RELAY_TEST', kind, message: 'a refusal', details: { groups: ['a', 'b'] } });
  });
});

describe('toGrpcStatus', () => {
  it('hides a plain error behind INTERNAL and REMOTE_RELAY_INTERNAL', () => {
    const sent = toGrpcStatus(new Error('password=hunter2'));
    expect(sent).toMatchObject({ code: status.INTERNAL, details: 'internal error' });
    expect(sent.metadata.get(CODE_METADATA_KEY)).toEqual([INTERNAL_CODE]);
    expect(JSON.stringify(sent.metadata.toJSON())).not.toContain('hunter2');
  });

  it('treats thrown non-errors as bugs too', () => {
    expect(toGrpcStatus('oops')).toMatchObject({ code: status.INTERNAL, details: 'internal error' });
  });

  it('keeps non-ASCII details lossless in ASCII-only metadata', () => {
    const details = { suggestions: ['Müller', 'José', '日本', '😀'] };
    const sent = toGrpcStatus(new AppError('REMOTE_RELAY_UNKNOWN_GROUP', 'not_found', 'unknown group', { details }));
    expect(sent.metadata.get(DETAILS_METADATA_KEY)[0]).toMatch(/^[\x20-\x7e]*$/);
    expect(fromGrpcError(sent).details).toEqual(details);
  });

  it('sends no details entry when there are none', () => {
    expect(toGrpcStatus(new AppError('X', 'aborted', 'retry')).metadata.get(DETAILS_METADATA_KEY)).toEqual([]);
  });
});

describe('fromGrpcError without a relay code (the service never answered)', () => {
  it.each([
    [status.UNAVAILABLE, 'SERVICE_UNAVAILABLE', 'unavailable'],
    [status.DEADLINE_EXCEEDED, 'DEADLINE_EXCEEDED', 'deadline_exceeded'],
    [status.CANCELLED, INTERNAL_CODE, 'aborted'],
    [status.UNIMPLEMENTED, INTERNAL_CODE, 'unimplemented'],
    [status.UNKNOWN, INTERNAL_CODE, 'internal'],
    [status.DATA_LOSS, INTERNAL_CODE, 'internal'],
  ])('maps status %s to %s / %s', (code, expectedCode, expectedKind) => {
    const error = transportError(code, 'transport said no');
    expect(fromGrpcError(error)).toMatchObject({ code: expectedCode, kind: expectedKind, details: {}, cause: error });
  });

  it('ignores unparseable details', () => {
    const metadata = new Metadata();
    metadata.set(CODE_METADATA_KEY, 'REMOTE_RELAY_X');
    metadata.set(DETAILS_METADATA_KEY, '{not json');
    expect(fromGrpcError({ code: status.NOT_FOUND, details: 'gone', metadata })).toMatchObject({ code: 'REMOTE_RELAY_X', details: {} });
  });
});

describe('retriedOnTransportFailure', () => {
  const dropped = () => new AppError('SERVICE_UNAVAILABLE', 'unavailable', 'the service is not reachable');

  it('makes the call again after transport failures until it answers', async () => {
    let calls = 0;
    const raise = async (): Promise<string> => {
      calls += 1;
      if (calls < 3) throw dropped();
      return 'card_1';
    };
    expect(await retriedOnTransportFailure(raise)).toBe('card_1');
    expect(calls).toBe(3);
  });

  it('throws the callee’s own refusal at once, without a second call', async () => {
    const refusal = new AppError('REMOTE_RELAY_INVALID_INPUT', 'invalid_argument', 'title is required');
    let calls = 0;
    const raise = async (): Promise<string> => {
      calls += 1;
      throw refusal;
    };
    await expect(retriedOnTransportFailure(raise)).rejects.toBe(refusal);
    expect(calls).toBe(1);
  });
});
