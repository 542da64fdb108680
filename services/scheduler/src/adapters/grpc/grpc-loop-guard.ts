import { isAppError } from '@relay/errors';
import type { SessionServiceClient } from '@relay/proto/relay/session/v1/session_service';
import { callUnary } from '@relay/rpc';
import type { LoopGuard } from '../../app/ports.ts';

/**
 * The session service's loop guard (CountAgentPrompt): counts one prompt to another agent for the setting
 * conversation; false when the allowance is used up, so the firing is held. Whether the prompt may go is the
 * session service's answer, the same a send gets (the 30th goes, the 31st is held). Any other failure (but a
 * conversation that is gone) throws, and the firing is looked at again in a minute.
 */
export class GrpcLoopGuard implements LoopGuard {
  constructor(private readonly client: SessionServiceClient) {}

  async countPrompt(settingSessionId: string): Promise<boolean> {
    try {
      const counted = await callUnary(this.client, 'countAgentPrompt', { sessionId: settingSessionId, dryRun: false });
      return !counted.usedUp;
    } catch (error) {
      if (isAppError(error) && error.code === 'REMOTE_RELAY_LOOP_GUARD') return false;
      // The setting conversation is gone: nothing left to count for; its archived event ends the schedule.
      if (isAppError(error) && error.code === 'REMOTE_RELAY_NOT_FOUND') return true;
      throw error;
    }
  }
}
