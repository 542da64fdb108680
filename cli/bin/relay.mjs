#!/usr/bin/env node
// The `relay` command: cli/dist/main.js (see launch-cli.mjs). `relay up` runs it as a child process of its own,
// so that it can stop the relay's processes in order when the terminal's Ctrl-C comes.
import { launchUp, runCli } from './launch-cli.mjs';

const args = process.argv.slice(2);
if (args[0] === 'up') await launchUp(args.slice(1));
else await runCli();
