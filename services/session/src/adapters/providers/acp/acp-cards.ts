/**
 * An ACP agent's asks as the relay's approval cards, decided only by the session's owner: a permission request
 * (session/request_permission), a command in a terminal, a file write: what the card says (app/turns/ask-owner.ts
 * raises it and waits).
 */
import type { PermissionOption, RequestPermissionResponse, ToolCallUpdate } from '@agentclientprotocol/sdk';
import { approvalCardText, commandCard, type ApprovalCardText } from '../../../app/turns/command-card.ts';

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
