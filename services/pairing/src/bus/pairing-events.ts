/** The stream this service declares for its events (unpaired; remote events, link_lost, link_restored come with links). */
export const PAIRING_EVENTS_STREAM = { name: 'PAIRING_EVENTS', subjects: ['relay.pairing.v1.>'] };

/** The subjects this service publishes (proto payloads in relay/pairing/v1/events.proto). */
export const PairingSubject = {
  UNPAIRED: 'relay.pairing.v1.unpaired',
} as const;
