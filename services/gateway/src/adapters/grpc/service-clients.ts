/**
 * The gateway's promise clients of the services it calls (app/ports.ts names them), each over a gRPC client that
 * carries the gateway's credentials: made here for main.ts and the tests alike, and closed together.
 */
import { PairingServiceClient, PairingServiceService } from '@relay/proto/relay/pairing/v1/pairing_service';
import { RemoteEventsServiceClient, RemoteEventsServiceService } from '@relay/proto/relay/pairing/v1/remote_events';
import { QuestionServiceClient, QuestionServiceService } from '@relay/proto/relay/question/v1/question_service';
import { SchedulerServiceClient, SchedulerServiceService } from '@relay/proto/relay/scheduler/v1/scheduler_service';
import { OAuthServiceClient, OAuthServiceService } from '@relay/proto/relay/session/v1/oauth_service';
import { McpTaskServiceClient, McpTaskServiceService } from '@relay/proto/relay/session/v1/mcp_task_service';
import { SessionServiceClient, SessionServiceService } from '@relay/proto/relay/session/v1/session_service';
import { SubscriptionServiceClient, SubscriptionServiceService } from '@relay/proto/relay/subscription/v1/subscription_service';
import { createClient, promiseClient, type GrpcAuth } from '@relay/rpc';
import type { Owners } from '../../app/ports.ts';

/** How long a question to a service may take before the caller hears it did not answer. */
const DEADLINE_MS = 10_000;

/** Where each service answers; a service left out is one this gateway runs without. */
export interface ServiceAddresses {
  session: string;
  pairing: string;
  question: string;
  subscription?: string;
  scheduler?: string;
  /** The pairing service's RemoteEventsService (subscriptions and asks across relays), on the pairing service's address. */
  remoteEvents?: string;
}

export interface ServiceClients extends Owners {
  /** Closes every channel. */
  close(): void;
}

/** The clients of the services at `addresses`, calling as `auth` says. */
export function createServiceClients(addresses: ServiceAddresses, auth: GrpcAuth): ServiceClients {
  const channels: { close(): void }[] = [];
  const open = <C extends { close(): void }>(client: C): C => {
    channels.push(client);
    return client;
  };
  const options = { deadlineMs: DEADLINE_MS };
  const clients: ServiceClients = {
    sessions: promiseClient(SessionServiceService, open(createClient(SessionServiceClient, addresses.session, auth)), options),
    pairing: promiseClient(PairingServiceService, open(createClient(PairingServiceClient, addresses.pairing, auth)), options),
    questions: promiseClient(QuestionServiceService, open(createClient(QuestionServiceClient, addresses.question, auth)), options),
    // The session service hosts the sign-in grants beside the tokens they are.
    oauth: promiseClient(OAuthServiceService, open(createClient(OAuthServiceClient, addresses.session, auth)), options),
    // ... and MCP clients' tasks, which any gateway replica reads.
    mcpTasks: promiseClient(McpTaskServiceService, open(createClient(McpTaskServiceClient, addresses.session, auth)), options),
    close() {
      for (const channel of channels) channel.close();
    },
  };
  if (addresses.subscription !== undefined) {
    clients.subscriptions = promiseClient(SubscriptionServiceService, open(createClient(SubscriptionServiceClient, addresses.subscription, auth)), options);
  }
  if (addresses.scheduler !== undefined) {
    clients.schedules = promiseClient(SchedulerServiceService, open(createClient(SchedulerServiceClient, addresses.scheduler, auth)), options);
  }
  if (addresses.remoteEvents !== undefined) {
    clients.remoteEvents = promiseClient(RemoteEventsServiceService, open(createClient(RemoteEventsServiceClient, addresses.remoteEvents, auth)), options);
  }
  return clients;
}
