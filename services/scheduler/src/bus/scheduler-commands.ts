/** The stream this service declares for the commands it publishes (scheduled prompts come with schedule). */
export const SCHEDULER_COMMANDS_STREAM = { name: 'SCHEDULER_COMMANDS', subjects: ['relay.scheduler.v1.>'] };
