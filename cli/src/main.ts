import { ConfigError } from '@relay/config';
import { CliError } from './cli-error.ts';
import { runCreateSession, runSessions } from './commands/sessions.ts';
import { runUp } from './commands/up.ts';
import { HELP_TEXT, parseCommand, type Command } from './parse-command.ts';

/** Runs one command; every failure the user can act on becomes one line on stderr and exit code 1. */
async function main(argv: readonly string[]): Promise<number> {
  let command: Command;
  try {
    command = parseCommand(argv);
    switch (command.kind) {
      case 'help':
        process.stdout.write(HELP_TEXT);
        return 0;
      case 'up':
        return await runUp(
          { json: command.json },
          { out: process.stdout, err: process.stderr, hasParentChannel: typeof process.send === 'function' },
        );
      case 'sessions':
        return await runSessions({ scope: command.scope, json: command.json }, { out: process.stdout });
      case 'create-session':
        return await runCreateSession({ title: command.title, json: command.json }, { out: process.stdout });
    }
  } catch (error) {
    if (error instanceof CliError || error instanceof ConfigError) {
      process.stderr.write(`relay: ${error.message}\n`);
      return error instanceof CliError ? error.exitCode : 1;
    }
    throw error;
  }
}

process.exit(await main(process.argv.slice(2)));
