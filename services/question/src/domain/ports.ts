/**
 * What the question service's use cases need from the outside world. Empty until asks, cards and the
 * Inbox arrive: then their store and the Clock (for expiries).
 */
export {};
