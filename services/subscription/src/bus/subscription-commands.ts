/** The stream this service declares for the commands it publishes (wake-ups come with subscribe). */
export const SUBSCRIPTION_COMMANDS_STREAM = { name: 'SUBSCRIPTION_COMMANDS', subjects: ['relay.subscription.v1.>'] };
