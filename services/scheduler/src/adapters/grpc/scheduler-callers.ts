import type { SchedulerServiceService } from '@relay/proto/relay/scheduler/v1/scheduler_service';
import type { Callers } from '@relay/rpc';

/** Who may call each SchedulerService RPC: only the gateway, for the schedule actions. */
export const SCHEDULER_CALLERS = {
  createSchedule: ['gateway'],
  listSchedules: ['gateway'],
  endSchedule: ['gateway'],
} satisfies Callers<typeof SchedulerServiceService>;
