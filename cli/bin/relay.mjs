#!/usr/bin/env node
// The `relay` command: cli/src/main.ts run through tsx (see launch-cli.mjs).
import { launchCli } from './launch-cli.mjs';

const args = process.argv.slice(2);
launchCli(args, { isolate: args[0] === 'up' });
