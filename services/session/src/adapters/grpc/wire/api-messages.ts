import { toPendingQuestion, toSessionMessage } from './session-wire.ts';
import { toTaskMessage } from './task-wire.ts';
import { toTurnStatusMessage } from './turn-wire.ts';

/** The API's encoders of the values the session events carry too; main.ts hands them to the stores that write the events. */
export const API_MESSAGES = { toSessionMessage, toPendingQuestion, toTurnStatusMessage, toTaskMessage };
