import { Metadata, status, type ServiceError, type StatusObject } from '@grpc/grpc-js';
import { AppError, INTERNAL_CODE, isAppError, type ErrorDetails, type ErrorKind } from '@relay/errors';

/** Trailing metadata entry carrying the AppError's stable code. */
export const CODE_METADATA_KEY = 'relay-code';
/** Trailing metadata entry carrying the AppError's details as (ASCII-only) JSON. */
export const DETAILS_METADATA_KEY = 'relay-details';
/** The code a caller sees when it could not reach the service at all. */
export const UNAVAILABLE_CODE = 'SERVICE_UNAVAILABLE';
/** The code a caller sees when its deadline passed before the service answered. */
export const DEADLINE_CODE = 'DEADLINE_EXCEEDED';

/** The one mapping between the relay's error kinds and gRPC status codes; it is one-to-one. */
export const STATUS_BY_KIND: Readonly<Record<ErrorKind, status>> = {
  invalid_argument: status.INVALID_ARGUMENT,
  not_found: status.NOT_FOUND,
  already_exists: status.ALREADY_EXISTS,
  failed_precondition: status.FAILED_PRECONDITION,
  permission_denied: status.PERMISSION_DENIED,
  unauthenticated: status.UNAUTHENTICATED,
  resource_exhausted: status.RESOURCE_EXHAUSTED,
  unavailable: status.UNAVAILABLE,
  deadline_exceeded: status.DEADLINE_EXCEEDED,
  aborted: status.ABORTED,
  unimplemented: status.UNIMPLEMENTED,
  internal: status.INTERNAL,
};

const KIND_BY_STATUS = new Map<status, ErrorKind>([
  ...Object.entries(STATUS_BY_KIND).map(([kind, code]) => [code, kind as ErrorKind] as const),
  // Statuses no relay service sends on purpose, but the transport or a client can produce.
  [status.CANCELLED, 'aborted'],
  [status.OUT_OF_RANGE, 'invalid_argument'],
]);

/** The status a gRPC handler sends for a thrown value: AppErrors keep code, kind, message and details; anything else hides its message. */
export function toGrpcStatus(error: unknown): StatusObject {
  const metadata = new Metadata();
  if (!isAppError(error)) {
    metadata.set(CODE_METADATA_KEY, INTERNAL_CODE);
    return { code: status.INTERNAL, details: 'internal error', metadata };
  }
  metadata.set(CODE_METADATA_KEY, error.code);
  if (Object.keys(error.details).length > 0) metadata.set(DETAILS_METADATA_KEY, asciiJson(error.details));
  return { code: STATUS_BY_KIND[error.kind], details: error.message, metadata };
}

/** The AppError a caller sees for a failed call: the server's code, kind and details, or a transport code when the service never answered. */
export function fromGrpcError(error: Pick<ServiceError, 'code' | 'details' | 'metadata'>): AppError {
  const kind = KIND_BY_STATUS.get(error.code) ?? 'internal';
  const serverCode = firstString(error.metadata?.get(CODE_METADATA_KEY));
  const code = serverCode ?? transportCode(error.code);
  const details = serverCode ? parseDetails(firstString(error.metadata.get(DETAILS_METADATA_KEY))) : {};
  return new AppError(code, kind, error.details || code, { cause: error, details });
}

/**
 * Whether a failed call may be made again to re-attach to what it waited on: the connection failed or was recycled
 * (no answer from the relay's service at all: no relay-code in the trailers) or the service said it is unavailable
 * (stopping, not ready). A refusal the service made (not found, invalid, denied, its own bug) is not.
 */
export function isTransportFailure(error: unknown): boolean {
  if (!isAppError(error)) return false;
  if (error.kind === 'unavailable') return true;
  const cause = error.cause as Partial<Pick<ServiceError, 'code' | 'metadata'>> | undefined;
  if (cause === undefined || typeof cause.code !== 'number') return false;
  return firstString(cause.metadata?.get(CODE_METADATA_KEY)) === undefined && TRANSPORT_STATUSES.has(cause.code);
}

/** The statuses grpc-js gives a call whose connection dropped, was recycled (GOAWAY) or was reset under it. */
const TRANSPORT_STATUSES: ReadonlySet<status> = new Set([status.UNAVAILABLE, status.CANCELLED, status.INTERNAL, status.UNKNOWN, status.DEADLINE_EXCEEDED]);

/**
 * Real time before the `attempt`th (1, 2, …) re-attachment after a transport failure: 250 ms doubling to 5 s, so a
 * service that restarts is found soon after it is back and one that stays away costs a call every 5 s.
 */
export function reattachDelayMs(attempt: number): number {
  return Math.min(5_000, 250 * 2 ** Math.max(0, attempt - 1));
}

/** Tries of a call retriedOnTransportFailure makes (about 18 s of reattachDelayMs between them). */
const RETRIED_CALL_ATTEMPTS = 8;

/**
 * Makes `call` again after a transport failure (isTransportFailure), up to 8 times over about 18 s; the callee's own
 * refusal, or the last failure, is thrown. Only for a call the callee answers the same when it is made again (a
 * RaiseCard under its raise id): a failed transport does not say whether the first one took effect.
 */
export async function retriedOnTransportFailure<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!isTransportFailure(error) || attempt >= RETRIED_CALL_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, reattachDelayMs(attempt)));
    }
  }
}

function transportCode(code: status): string {
  if (code === status.UNAVAILABLE) return UNAVAILABLE_CODE;
  if (code === status.DEADLINE_EXCEEDED) return DEADLINE_CODE;
  return INTERNAL_CODE;
}

function firstString(values: (string | Buffer)[] | undefined): string | undefined {
  const value = values?.[0];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function parseDetails(json: string | undefined): ErrorDetails {
  if (!json) return {};
  try {
    const parsed: unknown = JSON.parse(json);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as ErrorDetails) : {};
  } catch {
    return {};
  }
}

// gRPC metadata values must be printable ASCII; escaping the rest keeps the JSON valid and lossless.
function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[^\x20-\x7e]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
