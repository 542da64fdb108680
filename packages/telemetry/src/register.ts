/**
 * `node --import @relay/telemetry/register …`: starts OpenTelemetry before the application loads, configured only
 * by OTEL_* variables. When they name no exporter and no endpoint nothing would leave the process, so neither the
 * SDK nor the import hook (a loader thread of its own) is loaded: about 40 MB of every service at rest. The API
 * then stays its no-op: no spans, no trace ids in logs or in what a service sends on.
 */
import { register } from 'node:module';
import { signalsFromEnv } from './signals-from-env.ts';

const signals = signalsFromEnv(process.env);
if (signals.traces || signals.metrics || signals.logs) {
  // Loaded before the hook is registered, so the hook does not wrap the SDK's own modules.
  const { startTelemetry } = await import('./start-telemetry.ts');
  // Lets import-in-the-middle patch packages the application reaches through ESM imports.
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
  startTelemetry();
}
