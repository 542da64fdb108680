/**
 * relay.session.v1.SessionService's task RPC: ReadTaskOutput (merge with sessionGrpc and turnGrpc).
 */
import type { Clock } from '@relay/clock';
import type { SessionServiceServer } from '@relay/proto/relay/session/v1/session_service';
import { serveUnary } from '@relay/rpc';
import type { Logger } from '@relay/telemetry';
import type { TaskOutputReader, TaskStore } from '../../app/tasks/ports.ts';
import { readTaskOutput } from '../../app/tasks/read-task-output.ts';
import { toTaskMessage, toTestCountsMessage } from './wire/task-wire.ts';

type SessionServiceMethods = { [K in keyof SessionServiceServer as string extends K ? never : K]: SessionServiceServer[K] };

/** The SessionService methods this file serves. */
export type TaskMethod = 'readTaskOutput';

export function taskGrpc(deps: {
  tasks: TaskStore;
  output: TaskOutputReader;
  relay: { name: string };
  /** The relay's quiet setting for tasks, read for each call (the user may change it). */
  quietAfterMinutes: () => Promise<number>;
  clock: Clock;
  logger: Logger;
}): ReturnType<typeof serveUnary> {
  return serveUnary<Pick<SessionServiceMethods, TaskMethod>>(deps.logger, {
    readTaskOutput: async (request) => {
      const read = await readTaskOutput(
        { ...deps, quietAfterMinutes: await deps.quietAfterMinutes() },
        {
          userId: request.userId,
          sessionId: request.sessionId,
          taskId: request.taskId,
          lines: request.lines,
          now: deps.clock.now(),
        },
      );
      return {
        task: toTaskMessage(read.task, { hasOutput: read.tail.length > 0, counts: read.counts }),
        tail: read.tail,
        truncated: read.truncated,
        stall: read.stall && {
          minutes: read.stall.minutes,
          since: read.stall.since,
          quiet: read.stall.quiet,
          quietAfterMinutes: read.stall.quietAfterMinutes,
        },
        counts: read.counts && toTestCountsMessage(read.counts),
        notes: read.notes,
      };
    },
  });
}
