import type { Bus } from '@relay/bus';
import type { Logger } from '@relay/telemetry';
import type { ProviderRegistry } from '../../app/turns/provider-registry.ts';

/** Core NATS request/reply subject: "steer this text into the session's running turn, if it runs on you". */
export const STEER_SUBJECT = 'relay.session.v1.steer';

/** How long a replica waits for the one running the turn to take the text (real time). */
const STEER_TIMEOUT_MS = 1_000;

interface SteerRequest {
  providerId: string;
  sessionId: string;
  text: string;
}

/**
 * Steering across replicas: the turn runs on one replica, the wake-up may be consumed on another. Each
 * replica answers a steer request only when its provider took the text (the one running the turn); the
 * asker tries itself first, then asks the others, and queues the text when nobody takes it in time.
 */
export function busSteering(
  bus: Bus,
  providers: ProviderRegistry,
  logger: Logger,
): { steer(providerId: string, sessionId: string, text: string): Promise<boolean>; stop(): void } {
  const subscription = bus.nc.subscribe(STEER_SUBJECT, {
    callback: (error, message) => {
      if (error) return logger.warn({ err: error }, 'steer subscription failed');
      try {
        const request = message.json<SteerRequest>();
        if (providers.steer(request.providerId, request.sessionId, request.text)) message.respond(JSON.stringify({ taken: true }));
      } catch (cause) {
        logger.warn({ err: cause }, 'steer request is not JSON');
      }
    },
  });
  return {
    steer: async (providerId, sessionId, text) => {
      if (providers.get(providerId)?.canSteer !== true) return false;
      if (providers.steer(providerId, sessionId, text)) return true;
      try {
        const answer = await bus.nc.request(STEER_SUBJECT, JSON.stringify({ providerId, sessionId, text } satisfies SteerRequest), {
          timeout: STEER_TIMEOUT_MS,
        });
        return answer.json<{ taken?: boolean }>().taken === true;
      } catch {
        // No replica took it (none runs the turn any more, or it ended meanwhile): the caller queues it.
        return false;
      }
    },
    stop: () => subscription.unsubscribe(),
  };
}
