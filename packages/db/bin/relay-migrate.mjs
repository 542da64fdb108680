#!/usr/bin/env node
// Registers tsx from this package's own resolution, so the bin works from any working directory.
import { register } from 'tsx/esm/api';

register();
const { runMigrateCli } = await import('../src/run-migrate-cli.ts');
process.exitCode = await runMigrateCli(process.argv.slice(2), process.env, process.stdout, process.stderr);
