/**
 * The services the gateway calls, each as a promise client over its generated contract (@relay/rpc promiseClient):
 * requests and answers are the protos' own types, and the gateway keeps no copy of them. These are the use cases'
 * ports: adapters/grpc/service-clients.ts makes them, and the views (app/views/) turn the answers into the spec's
 * result shapes.
 */
import type { PairingServiceService } from '@relay/proto/relay/pairing/v1/pairing_service';
import type { RemoteEventsServiceService } from '@relay/proto/relay/pairing/v1/remote_events';
import type { QuestionServiceService } from '@relay/proto/relay/question/v1/question_service';
import type { SchedulerServiceService } from '@relay/proto/relay/scheduler/v1/scheduler_service';
import type { OAuthServiceService } from '@relay/proto/relay/session/v1/oauth_service';
import type { McpTaskServiceService } from '@relay/proto/relay/session/v1/mcp_task_service';
import type { SessionServiceService } from '@relay/proto/relay/session/v1/session_service';
import type { SubscriptionServiceService } from '@relay/proto/relay/subscription/v1/subscription_service';
import type { PromiseClient } from '@relay/rpc';

/** A call the pairing service passes on to a paired relay answers once that relay has (up to its own timeout). */
export const REMOTE_DEADLINE_MS = 30_000;

export type PairingClient = PromiseClient<typeof PairingServiceService>;
export type QuestionClient = PromiseClient<typeof QuestionServiceService>;
/** The pairing service's events and asks across relays (relay.pairing.v1.RemoteEventsService). */
export type RemoteEventsClient = PromiseClient<typeof RemoteEventsServiceService>;
export type SchedulerClient = PromiseClient<typeof SchedulerServiceService>;
export type SessionClient = PromiseClient<typeof SessionServiceService>;
export type SubscriptionClient = PromiseClient<typeof SubscriptionServiceService>;
/** The session service's sign-in grants for MCP clients (relay.session.v1.OAuthService). */
export type OAuthServiceClient = PromiseClient<typeof OAuthServiceService>;
/** The session service's store of MCP clients' tasks (relay.session.v1.McpTaskService). */
export type McpTaskClient = PromiseClient<typeof McpTaskServiceService>;

/** The services the gateway calls, each as its client; one left out is a service this gateway runs without. */
export interface Owners {
  sessions: SessionClient;
  pairing: PairingClient;
  questions: QuestionClient;
  /** The subscription service; without it, subscription actions answer REMOTE_RELAY_UNSUPPORTED. */
  subscriptions?: SubscriptionClient;
  /** The scheduler; without it, schedule actions answer REMOTE_RELAY_UNSUPPORTED. */
  schedules?: SchedulerClient;
  /** The pairing service's remote events (subscriptions and asks across relays); without them, those answer REMOTE_RELAY_UNSUPPORTED. */
  remoteEvents?: RemoteEventsClient;
  /** The session service's sign-in grants; without them, MCP clients cannot sign in with OAuth (tokens still work). */
  oauth?: OAuthServiceClient;
  /** The session service's store of MCP clients' tasks; without it, /mcp does not offer the Tasks extension. */
  mcpTasks?: McpTaskClient;
}
