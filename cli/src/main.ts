import { ConfigError } from '@relay/config';
import { CliError } from './cli-error.ts';
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
      // Each command loads only its own modules, so `relay sessions` does not wait for gRPC and Prisma to load.
      case 'up': {
        const { runUp } = await import('./commands/up.ts');
        return await runUp(
          { json: command.json },
          { out: process.stdout, err: process.stderr, hasParentChannel: typeof process.send === 'function' },
        );
      }
      case 'sessions': {
        const { runSessions } = await import('./commands/sessions.ts');
        return await runSessions({ scope: command.scope, json: command.json }, { out: process.stdout });
      }
      case 'create-session': {
        const { runCreateSession } = await import('./commands/sessions.ts');
        return await runCreateSession({ title: command.title, json: command.json }, { out: process.stdout });
      }
      case 'create-hosted-session': {
        const { runCreateHostedSession } = await import('./commands/sessions.ts');
        return await runCreateHostedSession(command, { out: process.stdout });
      }
      case 'say': {
        const { runSay } = await import('./commands/sessions.ts');
        return await runSay(command, { out: process.stdout });
      }
      case 'show-session': {
        const { runShowSession } = await import('./commands/sessions.ts');
        return await runShowSession(command, { out: process.stdout });
      }
      case 'set-session': {
        const { runSetSession } = await import('./commands/sessions.ts');
        return await runSetSession(command, { out: process.stdout });
      }
      case 'inbox': {
        const { runInbox } = await import('./commands/inbox.ts');
        return await runInbox(command, { out: process.stdout });
      }
      case 'answer': {
        const { runAnswer } = await import('./commands/inbox.ts');
        return await runAnswer(command, { out: process.stdout });
      }
      case 'decide': {
        const { runDecide } = await import('./commands/inbox.ts');
        return await runDecide(command, { out: process.stdout });
      }
      case 'settings': {
        const { runSettings } = await import('./commands/settings.ts');
        return await runSettings(command, { out: process.stdout });
      }
      case 'pairing-code': {
        const { runPairingCode } = await import('./commands/pairings.ts');
        return await runPairingCode(command, { out: process.stdout });
      }
      case 'pair': {
        const { runPair } = await import('./commands/pairings.ts');
        return await runPair(command, { out: process.stdout });
      }
      case 'pairs': {
        const { runPairs } = await import('./commands/pairings.ts');
        return await runPairs(command, { out: process.stdout });
      }
      case 'unpair': {
        const { runUnpair } = await import('./commands/pairings.ts');
        return await runUnpair(command, { out: process.stdout });
      }
      case 'users': {
        const { runUsers } = await import('./commands/users.ts');
        return await runUsers(command, { out: process.stdout });
      }
      case 'add-user': {
        const { runAddUser } = await import('./commands/users.ts');
        return await runAddUser(command, { out: process.stdout });
      }
      case 'remove-user': {
        const { runRemoveUser } = await import('./commands/users.ts');
        return await runRemoveUser(command, { out: process.stdout });
      }
      case 'user-token': {
        const { runUserToken } = await import('./commands/users.ts');
        return await runUserToken(command, { out: process.stdout });
      }
      case 'session-token': {
        const { runSessionToken } = await import('./commands/users.ts');
        return await runSessionToken(command, { out: process.stdout });
      }
      case 'whoami': {
        const { runWhoami } = await import('./commands/users.ts');
        return await runWhoami(command, { out: process.stdout });
      }
      case 'schedules': {
        const { runSchedules } = await import('./commands/schedules.ts');
        return await runSchedules(command, { out: process.stdout });
      }
      case 'subscriptions': {
        const { runSubscriptions } = await import('./commands/subscriptions.ts');
        return await runSubscriptions(command, { out: process.stdout });
      }
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
