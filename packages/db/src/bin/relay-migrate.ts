// The relay-migrate command: bin/relay-migrate.mjs runs it from the sources, the migration image as dist/relay-migrate.js
import { runMigrateCli } from '../run-migrate-cli.ts';

process.exitCode = await runMigrateCli(process.argv.slice(2), process.env, process.stdout, process.stderr);
