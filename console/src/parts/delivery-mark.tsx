// How far a message sent to a session has come (queued, delivered to the agent, failed), as a small tag by its time.
import type { Schemas } from '@relay/user-api';

const MEANS: Record<NonNullable<Schemas['Message']['delivery']>, string> = {
  queued: 'Queued: the agent has not taken it yet',
  delivered: 'Delivered to the agent',
  failed: 'Failed: it did not reach the agent, or its turn failed',
};

/** The delivery tag of a message; nothing for one that has none (a reply, an error row). */
export function DeliveryMark({ delivery }: { delivery: Schemas['Message']['delivery'] }) {
  if (delivery === undefined) return null;
  return (
    <span class={`tag delivery delivery-${delivery}`} data-delivery={delivery} title={MEANS[delivery]}>
      {delivery}
    </span>
  );
}
