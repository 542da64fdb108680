import { consume, waitForStream, type Bus, type Consumer, type Delivered } from '@relay/bus';
import { SchedulerCommands } from '@relay/proto/relay/bus-contracts';
import { queueScheduledPrompt, type ScheduledPromptDeps } from '../../app/deliveries/queue-scheduled-prompt.ts';

/** This service's durable consumer of the scheduler's queue_prompt commands. */
export const SCHEDULED_PROMPTS = { durable: 'session-scheduled-prompts', contract: SchedulerCommands.QUEUE_PROMPT } as const;

/** Queues each scheduled prompt into its target session (queueScheduledPrompt). */
export async function startScheduledPromptConsumer(bus: Bus, deps: ScheduledPromptDeps & { signal: AbortSignal }): Promise<Consumer | undefined> {
  if (!(await waitForStream(bus, SCHEDULED_PROMPTS.contract.stream, { logger: deps.logger, signal: deps.signal }))) return undefined;
  return consume(bus, {
    durable: SCHEDULED_PROMPTS.durable,
    contracts: [SCHEDULED_PROMPTS.contract],
    logger: deps.logger,
    handler: (message) => handleScheduledPrompt(deps, message),
  });
}

/** Hands one decoded queue_prompt to the use case, keyed by its message id. */
export async function handleScheduledPrompt(deps: ScheduledPromptDeps, message: Delivered<typeof SCHEDULED_PROMPTS.contract>): Promise<void> {
  await queueScheduledPrompt(deps, { consumer: SCHEDULED_PROMPTS.durable, messageId: message.id }, message.data);
}
