import type { SessionServiceService } from '@relay/proto/relay/session/v1/session_service';
import type { Callers } from '@relay/rpc';

const GATEWAY = ['gateway'] as const;

/**
 * Who may call each SessionService RPC: the gateway, on behalf of users and agents; the scheduler also counts
 * a schedule's prompts in the loop guard. Only the gateway creates users (`relay up` makes the first one with
 * the gateway's credentials, which it made itself).
 */
export const SESSION_CALLERS = {
  authenticate: GATEWAY,
  createUser: GATEWAY,
  listUsers: GATEWAY,
  removeUser: GATEWAY,
  rotateUserToken: GATEWAY,
  rotateSessionToken: GATEWAY,
  createSignInLink: GATEWAY,
  redeemSignInLink: GATEWAY,
  endSignIn: GATEWAY,
  listSessions: GATEWAY,
  createExternalSession: GATEWAY,
  getRelaySettings: GATEWAY,
  updateRelaySettings: GATEWAY,
  getRelayInfo: GATEWAY,
  getDailyUsage: GATEWAY,
  setBudget: GATEWAY,
  removeBudget: GATEWAY,
  getTreeUsage: GATEWAY,
  getBudgetedRemoteSessions: GATEWAY,
  checkTreeBudget: GATEWAY,
  noteRemoteTreeSpend: GATEWAY,
  readSession: GATEWAY,
  createSession: GATEWAY,
  sendMessage: GATEWAY,
  wait: GATEWAY,
  updateSession: GATEWAY,
  stopTurn: GATEWAY,
  archiveSession: GATEWAY,
  unarchiveSession: GATEWAY,
  getConversation: GATEWAY,
  setConversationOptions: GATEWAY,
  readTaskOutput: GATEWAY,
  countAgentPrompt: ['gateway', 'scheduler'],
  grantAgentPrompts: GATEWAY,
  noteRemoteSessionStarted: GATEWAY,
  noteRemoteUpdateAllowed: GATEWAY,
  noteAskAbout: GATEWAY,
  clearAskMark: GATEWAY,
  holdExternalCall: GATEWAY,
  renewExternalCalls: GATEWAY,
  releaseExternalCall: GATEWAY,
  getPendingMessages: GATEWAY,
  listPendingMessages: GATEWAY,
  followMessagesWritten: GATEWAY,
} satisfies Callers<typeof SessionServiceService>;
