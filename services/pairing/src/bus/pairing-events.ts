/** The stream this service declares for its events (remote events, link_lost, link_restored come with links). */
export const PAIRING_EVENTS_STREAM = { name: 'PAIRING_EVENTS', subjects: ['relay.pairing.v1.>'] };
