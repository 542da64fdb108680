/**
 * `node --import @relay/telemetry/register …`: starts OpenTelemetry before the application loads,
 * configured only by OTEL_* variables.
 */
import { register } from 'node:module';
import { startTelemetry } from './start-telemetry.ts';

// Lets import-in-the-middle patch packages the application reaches through ESM imports.
register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
startTelemetry();
