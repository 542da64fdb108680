/** What each number setting may be (decisions.md, Limits: Longest wait per tool call 120–3600 s). */
export const RELAY_SETTING_RANGES = {
  maxWaitSeconds: { min: 120, max: 3600, field: 'max_wait_seconds', unit: 'seconds' },
  maxTurnMinutes: { min: 1, max: 1440, field: 'max_turn_minutes', unit: 'minutes' },
  taskQuietMinutes: { min: 1, max: 1440, field: 'task_quiet_minutes', unit: 'minutes' },
} as const;
