/**
 * The pairing service's error codes: the one catalogue of its refusals. ListPairedRelays refuses nothing;
 * pair, unpair and forwarding a call add theirs here.
 */
export const PairingErrorCode = {} as const;
