/** The stream this service declares for the commands it publishes, and their subjects. */
export const SCHEDULER_COMMANDS_STREAM = { name: 'SCHEDULER_COMMANDS', subjects: ['relay.scheduler.v1.>'] };

export const SchedulerSubject = {
  /** A due schedule's prompt for the session service to queue (proto relay.scheduler.v1.QueuePrompt, JSON). */
  QUEUE_PROMPT: 'relay.scheduler.v1.cmd.queue_prompt',
} as const;
