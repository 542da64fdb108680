/**
 * An ACP agent's asks as the relay's approval cards, decided only by the session's owner: a permission request
 * (session/request_permission), a command in a terminal, a file write. What the card says, and waiting on it.
 */
import type { Logger } from '@relay/telemetry';
import type { PermissionOption, RequestPermissionResponse, ToolCallUpdate } from '@agentclientprotocol/sdk';
import { approvalCardText, commandCard, type ApprovalCardText } from '../../../app/turns/command-card.ts';
import { APPROVAL_ANSWERS, pendingQuestion, type QuestionCards } from '../../../app/turns/question-cards.ts';
import { isHandedOver, TurnFailed, type TurnInput } from '../../../app/turns/provider.ts';

/** The command a tool call would run, where the agent says (rawInput.command as text or argv); undefined otherwise. */
export function commandOf(toolCall: ToolCallUpdate): string | undefined {
  const raw = toolCall.rawInput as { command?: unknown } | undefined;
  const command = raw?.command;
  if (typeof command === 'string' && command.trim() !== '') return command;
  if (Array.isArray(command) && command.every((part) => typeof part === 'string')) return command.join(' ');
  return undefined;
}

/** The card for a permission request: a command card for an `execute` tool, else the tool's title and input. */
export function permissionCard(agent: string, cwd: string, runsIn: string, toolCall: ToolCallUpdate): ApprovalCardText | undefined {
  const command = commandOf(toolCall);
  if (toolCall.kind === 'execute' && command !== undefined) return commandCard({ agent, cwd, command, runsIn });
  const title = toolCall.title ?? toolCall.kind ?? 'use a tool';
  return approvalCardText(`${agent} wants to ${title}`, [
    `Folder: ${cwd}`,
    ...(toolCall.kind ? [`Kind: ${toolCall.kind}`] : []),
    ...(toolCall.locations ?? []).map((location) => `File: ${location.path}`),
    ...(toolCall.rawInput === undefined ? [] : [`Input: ${JSON.stringify(toolCall.rawInput)}`]),
  ]);
}

/** The agent's option for the owner's decision: once over always (the relay asks again next time); none: cancelled. */
export function permissionOutcome(options: readonly PermissionOption[], allowed: boolean): RequestPermissionResponse {
  const kinds = allowed ? ['allow_once', 'allow_always'] : ['reject_once', 'reject_always'];
  for (const kind of kinds) {
    const option = options.find((candidate) => candidate.kind === kind);
    if (option !== undefined) return { outcome: { outcome: 'selected', optionId: option.optionId } };
  }
  return { outcome: { outcome: 'cancelled' } };
}

/**
 * Raises an approval card in the turn's session and waits for its owner: true only on Allow. A withdrawn card is no
 * Allow; once the turn aborts the card is withdrawn (left for the replica it is handed over to) and the signal's
 * reason thrown. `raiseId`: raised again under it, on any replica, the card is the same one (ADR 0034).
 */
export async function askOwner(input: TurnInput, cards: QuestionCards, text: ApprovalCardText, logger: Logger, raiseId?: string): Promise<boolean> {
  const { userId, id: sessionId } = input.session;
  const card = { kind: 'approval' as const, userId, sessionId, ...text, ...(raiseId === undefined ? {} : { raiseId }) };
  const cardId = await cards.raise(card);
  await input.emit({ type: 'question_raised', question: pendingQuestion(cardId, card) });
  try {
    return (await cards.awaitAnswer(cardId, input.signal)) === APPROVAL_ANSWERS.allowed;
  } catch (error) {
    if (input.signal.aborted) {
      if (!isHandedOver(input.signal)) await cards.cancel(sessionId).catch((cause: unknown) => logger.warn({ err: cause, sessionId }, 'could not withdraw the agent’s card'));
      throw error;
    }
    if (error instanceof TurnFailed) return false;
    throw error;
  } finally {
    if (!input.signal.aborted) await input.emit({ type: 'question_answered', questionId: cardId });
  }
}
