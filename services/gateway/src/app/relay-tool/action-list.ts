/**
 * The spec's actions, in the order it presents them: one definition each (actions/*.ts). Every table of the
 * tool is read off this list.
 */
import { answerQuestion } from './actions/answer-question.ts';
import { archive } from './actions/archive.ts';
import { ask } from './actions/ask.ts';
import { createSession } from './actions/create-session.ts';
import { listQuestions } from './actions/list-questions.ts';
import { listRelays } from './actions/list-relays.ts';
import { listSchedules } from './actions/list-schedules.ts';
import { listSessions } from './actions/list-sessions.ts';
import { listSubscriptions } from './actions/list-subscriptions.ts';
import { readSession } from './actions/read-session.ts';
import { readTaskOutput } from './actions/read-task-output.ts';
import { relayInfo } from './actions/relay-info.ts';
import { schedule } from './actions/schedule.ts';
import { send } from './actions/send.ts';
import { stop } from './actions/stop.ts';
import { subscribe } from './actions/subscribe.ts';
import { transferSubscriptions } from './actions/transfer-subscriptions.ts';
import { unschedule } from './actions/unschedule.ts';
import { unsubscribe } from './actions/unsubscribe.ts';
import { updateSession } from './actions/update-session.ts';
import { usage } from './actions/usage.ts';
import { wait } from './actions/wait.ts';
import { withdraw } from './actions/withdraw.ts';
import type { ActionDefinition } from './define-action.ts';

const ACTIONS = [
  listRelays,
  relayInfo,
  usage,
  listSessions,
  readSession,
  readTaskOutput,
  send,
  createSession,
  updateSession,
  wait,
  answerQuestion,
  stop,
  archive,
  subscribe,
  unsubscribe,
  listSubscriptions,
  transferSubscriptions,
  schedule,
  listSchedules,
  unschedule,
  ask,
  listQuestions,
  withdraw,
] as const;

export type ActionName = (typeof ACTIONS)[number]['name'];

export const ACTION_NAMES: readonly ActionName[] = ACTIONS.map((action) => action.name);

const BY_NAME = new Map<string, ActionDefinition>(ACTIONS.map((action) => [action.name, action]));

/** True when `name` is one of the spec's actions. */
export function isActionName(name: string): name is ActionName {
  return BY_NAME.has(name);
}

/** The definition of action `name`. */
export function actionNamed(name: ActionName): ActionDefinition {
  return BY_NAME.get(name)!;
}
