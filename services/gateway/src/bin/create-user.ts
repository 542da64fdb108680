/**
 * `node dist/create-user.js NAME` in a gateway pod: creates a user through the session service as the gateway
 * (the only service allowed to), with the pod's own credentials, and prints the user and its token once. The
 * relay's first user is its admin; this is how a cluster gets one (docs/deploy.md, step 5).
 */
import { SessionServiceClient } from '@relay/proto/relay/session/v1/session_service';
import { callUnary, createClient, grpcAuth } from '@relay/rpc';
import { loadConfig } from '../config.ts';

const name = process.argv[2];
if (name === undefined || name.trim() === '') {
  process.stderr.write('usage: node dist/create-user.js NAME\n');
  process.exit(2);
}
const config = loadConfig();
const client = createClient(SessionServiceClient, config.SESSION_GRPC_ADDR, grpcAuth('gateway', config));
try {
  const user = await callUnary(client, 'createUser', { name }, { deadlineMs: 10_000 });
  process.stdout.write(`${JSON.stringify(user)}\n`);
} finally {
  client.close();
}
