import { Metadata, status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { CODE_METADATA_KEY } from '../src/grpc-error.ts';
import { servedCallAttributes } from '../src/served-call-metrics.ts';

describe('servedCallAttributes', () => {
  it('names the method without its leading slash and the status by name', () => {
    expect(servedCallAttributes('/relay.session.v1.SessionService/ListSessions', status.OK)).toEqual({
      'rpc.system.name': 'grpc',
      'rpc.method': 'relay.session.v1.SessionService/ListSessions',
      'rpc.response.status_code': 'OK',
    });
  });

  it('adds the AppError code of a failure', () => {
    const metadata = new Metadata();
    metadata.set(CODE_METADATA_KEY, 'REMOTE_RELAY_UNKNOWN_SESSION');
    expect(servedCallAttributes('/relay.session.v1.SessionService/GetSession', { code: status.NOT_FOUND, details: 'gone', metadata })).toMatchObject({
      'rpc.response.status_code': 'NOT_FOUND',
      'relay.error.code': 'REMOTE_RELAY_UNKNOWN_SESSION',
    });
  });

  it('counts a cancelled stream as CANCELLED with no error code', () => {
    expect(servedCallAttributes('/relay.test.v1.WatchService/Watch', status.CANCELLED)).not.toHaveProperty('relay.error.code');
    expect(servedCallAttributes('/relay.test.v1.WatchService/Watch', status.CANCELLED)['rpc.response.status_code']).toBe('CANCELLED');
  });
});
