#!/usr/bin/env node
// Registers tsx from this package's own resolution, so the bin works from any working directory.
import { register } from 'tsx/esm/api';

register();
await import('../src/bin/relay-migrate.ts');
