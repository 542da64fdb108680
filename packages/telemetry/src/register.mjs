// The `@relay/telemetry/register` entry. Node 20 cannot load TypeScript by itself, and `--import tsx`
// may come before or after this file. The import-in-the-middle hook that register.ts adds must see
// JavaScript, so when TypeScript cannot load yet, tsx is registered here first, for good.
import { register } from 'tsx/esm/api';

try {
  // A query string keeps the probe out of the module cache the app uses.
  await import('./tracer.ts?tsx-probe');
} catch (error) {
  if (error?.code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw error;
  register();
}
await import('./register.ts');
