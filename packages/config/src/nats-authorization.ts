/**
 * Who may do what on the relay's NATS: each service is a NATS user allowed its own streams, its own durable
 * consumers and its own reply inbox, nothing else. `relay up`, the tests' nats-server and the Kubernetes
 * config all render their `authorization` block from RELAY_BUS_ROLES, so the three cannot drift apart.
 * Only nats-server 2.9 features are used (Debian's).
 */

/** What one service does on the bus. */
export type BusRole = {
  /** The service's name, which is also its NATS user. */
  service: string;
  /** The JetStream streams it declares (creates, updates) and publishes to. */
  streams: { name: string; subjects: string[] }[];
  /** Its durable pull consumers, each on a stream that it or another service declares. */
  consumers: { stream: string; durable: string }[];
  /** Core NATS subjects it subscribes to outside JetStream (nudges, request/reply among its replicas). */
  listens: string[];
};

/**
 * The relay's services and their part of the bus, as their bus code declares it (the events table of
 * docs/architecture.md). The gateway does not use NATS. A stream, subject or durable missing here is refused
 * by nats-server with a permissions violation.
 */
export const RELAY_BUS_ROLES: readonly BusRole[] = [
  {
    service: 'session',
    streams: [{ name: 'SESSION_EVENTS', subjects: ['relay.session.v1.>'] }],
    consumers: [
      { stream: 'SUBSCRIPTION_COMMANDS', durable: 'session-wakeups' },
      { stream: 'SCHEDULER_COMMANDS', durable: 'session-scheduled-prompts' },
      { stream: 'QUESTION_EVENTS', durable: 'session-budget-cards' },
    ],
    listens: [
      'relay.session.v1.turn_queued',
      'relay.session.v1.turn_ended',
      'relay.session.v1.steer',
      'relay.session.v1.budget_changed',
      'relay.session.v1.message_written',
    ],
  },
  {
    service: 'subscription',
    streams: [{ name: 'SUBSCRIPTION_COMMANDS', subjects: ['relay.subscription.v1.>'] }],
    consumers: [
      { stream: 'SESSION_EVENTS', durable: 'subscription-session-events' },
      { stream: 'SESSION_EVENTS', durable: 'subscription-watch-session-events' },
      { stream: 'QUESTION_EVENTS', durable: 'subscription-watch-question-events' },
    ],
    listens: [],
  },
  {
    service: 'scheduler',
    streams: [{ name: 'SCHEDULER_COMMANDS', subjects: ['relay.scheduler.v1.>'] }],
    consumers: [{ stream: 'SESSION_EVENTS', durable: 'scheduler-session-events' }],
    listens: [],
  },
  {
    service: 'question',
    streams: [{ name: 'QUESTION_EVENTS', subjects: ['relay.question.v1.>'] }],
    consumers: [
      { stream: 'SESSION_EVENTS', durable: 'question-session-archived' },
      { stream: 'SESSION_EVENTS', durable: 'question-turn-ended' },
      { stream: 'QUESTION_EVENTS', durable: 'question-notifications' },
    ],
    listens: [],
  },
  {
    service: 'pairing',
    streams: [{ name: 'PAIRING_EVENTS', subjects: ['relay.pairing.v1.>'] }],
    consumers: [
      { stream: 'SESSION_EVENTS', durable: 'pairing-remote-session-events' },
      { stream: 'PAIRING_EVENTS', durable: 'pairing-remote-unpaired' },
    ],
    listens: [],
  },
];

/** The NATS users `relay up` and the tests make, one per service that uses the bus. */
export const BUS_SERVICE_NAMES = RELAY_BUS_ROLES.map((role) => role.service);

/**
 * Where a user's replies arrive (JetStream API answers, pulled messages, request replies). Each user has its
 * own, so no service can read what is meant for another; connectBus sets it as the connection's inbox prefix.
 */
export function natsInboxPrefix(user: string): string {
  return `_INBOX.${user}`;
}

export type NatsPermissions = { publish: string[]; subscribe: string[] };

/**
 * The subjects `role` may publish to and subscribe to (allow lists; everything else is denied). JetStream is
 * driven by publishing to its API subjects, so these cover the account check, the streams the service
 * declares and reads, and per durable: create/update (with its filter in the subject, as 2.9's API has it),
 * info, pulling the next messages and acking them.
 */
export function natsPermissions(role: BusRole): NatsPermissions {
  const inbox = `${natsInboxPrefix(role.service)}.>`;
  const ownStreams = role.streams.map((stream) => stream.name);
  const readStreams = [...new Set(role.consumers.map((consumer) => consumer.stream))].filter((stream) => !ownStreams.includes(stream));
  const publish = [
    '$JS.API.INFO',
    ...role.streams.flatMap((stream) => [
      `$JS.API.STREAM.CREATE.${stream.name}`,
      `$JS.API.STREAM.UPDATE.${stream.name}`,
      `$JS.API.STREAM.INFO.${stream.name}`,
      ...stream.subjects,
    ]),
    ...readStreams.map((stream) => `$JS.API.STREAM.INFO.${stream}`),
    ...role.consumers.flatMap(({ stream, durable }) => [
      `$JS.API.CONSUMER.CREATE.${stream}.${durable}`,
      `$JS.API.CONSUMER.CREATE.${stream}.${durable}.>`,
      `$JS.API.CONSUMER.INFO.${stream}.${durable}`,
      `$JS.API.CONSUMER.MSG.NEXT.${stream}.${durable}`,
      `$JS.ACK.${stream}.${durable}.>`,
    ]),
    // A replica answering another replica's request (steering) replies into that replica's inbox.
    inbox,
  ];
  return { publish, subscribe: [inbox, ...role.listens] };
}

/** A password as the config file holds it: the text itself, or nats-server's reference to an environment variable. */
export type NatsPassword = { value: string } | { env: string };

/** A user of the `authorization` block; without permissions it may do everything (the tests' own identity). */
export type NatsUser = { user: string; password: NatsPassword; permissions?: NatsPermissions };

/** One user per role, each with its permissions and the password `passwordOf` gives it. */
export function natsUsers(roles: readonly BusRole[], passwordOf: (service: string) => NatsPassword): NatsUser[] {
  return roles.map((role) => ({ user: role.service, password: passwordOf(role.service), permissions: natsPermissions(role) }));
}

/**
 * The nats-server `authorization { users: [...] }` block for `users`. With users listed, nats-server refuses
 * a connection without a known user and password. Strings are quoted (so `$JS…` is not read as a variable);
 * an `{ env }` password is left bare, which nats-server resolves from its environment.
 */
export function renderNatsAuthorization(users: readonly NatsUser[]): string {
  const list = (subjects: string[]) => `[${subjects.map((subject) => JSON.stringify(subject)).join(', ')}]`;
  const entries = users.map((user) => {
    const password = 'env' in user.password ? `$${user.password.env}` : JSON.stringify(user.password.value);
    const lines = [`      user: ${JSON.stringify(user.user)}`, `      password: ${password}`];
    if (user.permissions !== undefined) {
      lines.push(
        '      permissions: {',
        `        publish: { allow: ${list(user.permissions.publish)} }`,
        `        subscribe: { allow: ${list(user.permissions.subscribe)} }`,
        '      }',
      );
    }
    return ['    {', ...lines, '    }'].join('\n');
  });
  return ['authorization {', '  users: [', ...entries, '  ]', '}', ''].join('\n');
}
