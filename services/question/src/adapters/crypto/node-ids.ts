import { createHash, randomInt, randomUUID } from 'node:crypto';
import type { IdGenerator } from '../../app/ports.ts';

const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz';

/** Node's crypto behind the domain's id port. */
export const nodeIds: IdGenerator = {
  // 12 base36 characters ≈ 62 bits: unguessable enough for an id that is always checked against its user.
  newCardId: () => `card_${Array.from({ length: 12 }, () => BASE36[randomInt(36)]).join('')}`,
  // The same 12 characters from a digest of the session and the raise id: the same raise gets the same card.
  cardIdFor: (sessionId, raiseId) => {
    const digest = createHash('sha256').update(`${sessionId}\n${raiseId}`).digest();
    return `card_${Array.from(digest.subarray(0, 12), (byte) => BASE36[byte % 36]).join('')}`;
  },
  newAskId: () => `ask_${Array.from({ length: 12 }, () => BASE36[randomInt(36)]).join('')}`,
  newEventId: () => randomUUID(),
};
