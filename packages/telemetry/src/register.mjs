// The `@relay/telemetry/register` entry. Node 20 cannot load TypeScript by itself and this file runs
// before `--import tsx`, so it borrows tsx just long enough to load register.ts. The app later imports
// the same module URLs, so it shares the SDK started here.
import { register } from 'tsx/esm/api';

const unregister = register();
await import('./register.ts');
await unregister();
