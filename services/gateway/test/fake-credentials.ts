// The service credentials the gateway's tests share: the fake services serve with them, and the gateway's clients
// call them as the gateway, as in a relay where every call between services carries its caller's token.
import { makeTestCredentials } from '@relay/testing';

export const fakeCredentials = makeTestCredentials();

/** The gateway's credentials, for the clients a test builds the gateway with. */
export const gatewayAuth = fakeCredentials.auth('gateway');
