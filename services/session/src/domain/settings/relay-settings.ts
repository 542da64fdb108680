/** What each number setting may be (decisions.md, Limits: Longest wait per tool call 120–3600 s). */
export const RELAY_SETTING_RANGES = {
  maxWaitSeconds: { min: 120, max: 3600, field: 'max_wait_seconds', unit: 'seconds' },
  maxTurnMinutes: { min: 1, max: 1440, field: 'max_turn_minutes', unit: 'minutes' },
  taskQuietMinutes: { min: 1, max: 1440, field: 'task_quiet_minutes', unit: 'minutes' },
} as const;

/** The relay-wide settings; the stored row is the source of truth once seeded. */
export interface RelaySettings {
  /** "Agents may start and use sessions on this relay". */
  agentSessionsEnabled: boolean;
  /** Longest wait per tool call. */
  maxWaitSeconds: number;
  /** Max turn duration. */
  maxTurnMinutes: number;
  /** The quiet setting for tasks: minutes without output after which a running task counts as quiet. */
  taskQuietMinutes: number;
}

/** Where this relay stands: its name and the folders sessions may use. */
export interface RelayPlace {
  /** RELAY_NAME, as refusals and provenance name it. */
  name: string;
  defaultCwd: string;
  allowedRoots: readonly string[];
}
