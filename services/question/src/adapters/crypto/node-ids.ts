import { randomInt, randomUUID } from 'node:crypto';
import type { IdGenerator } from '../../app/ports.ts';

const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz';

/** Node's crypto behind the domain's id port. */
export const nodeIds: IdGenerator = {
  // 12 base36 characters ≈ 62 bits: unguessable enough for an id that is always checked against its user.
  newCardId: () => `card_${Array.from({ length: 12 }, () => BASE36[randomInt(36)]).join('')}`,
  newAskId: () => `ask_${Array.from({ length: 12 }, () => BASE36[randomInt(36)]).join('')}`,
  newEventId: () => randomUUID(),
};
