import { ConfigError } from '@relay/config';
import { CliError } from './cli-error.ts';
import { HELP_TEXT, parseCommand, USAGE_EXIT_CODE, type Command } from './parse-command.ts';

/**
 * Runs one command and answers its exit code: 0 when it did what was asked, 1 when the relay (or the
 * machine) refused or failed, 2 when the command line itself is wrong. Every failure the user can act on
 * becomes one line on stderr.
 */
async function main(argv: readonly string[]): Promise<number> {
  let command: Command;
  try {
    command = parseCommand(argv);
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    process.stderr.write(`relay: ${error.message}\n`);
    return USAGE_EXIT_CODE;
  }
  try {
    switch (command.kind) {
      case 'help':
        process.stdout.write(HELP_TEXT);
        return 0;
      // Each command loads only its own modules, so `relay sessions` does not wait for gRPC and Prisma to load.
      case 'up': {
        const { runUp } = await import('./commands/up.ts');
        return await runUp(
          { json: command.json, signInLink: command.signInLink, ...(command.replicas === undefined ? {} : { replicas: command.replicas }) },
          { out: process.stdout, err: process.stderr, hasParentChannel: typeof process.send === 'function' },
        );
      }
      case 'sessions': {
        const { runSessions } = await import('./commands/sessions.ts');
        const { scope, page, all, json } = command;
        return await runSessions({ scope, page, all, json }, { out: process.stdout, err: process.stderr });
      }
      case 'create-session': {
        const { runCreateSession } = await import('./commands/sessions.ts');
        return await runCreateSession({ title: command.title, json: command.json }, { out: process.stdout, err: process.stderr });
      }
      case 'create-hosted-session': {
        const { runCreateHostedSession } = await import('./commands/sessions.ts');
        return await runCreateHostedSession(command, { out: process.stdout, err: process.stderr });
      }
      case 'say': {
        const { runSay } = await import('./commands/sessions.ts');
        return await runSay(command, { out: process.stdout, err: process.stderr });
      }
      case 'show-session': {
        const { runShowSession } = await import('./commands/sessions.ts');
        return await runShowSession(command, { out: process.stdout, err: process.stderr });
      }
      case 'set-session': {
        const { runSetSession } = await import('./commands/sessions.ts');
        return await runSetSession(command, { out: process.stdout, err: process.stderr });
      }
      case 'stop-session': {
        const { runStopSession } = await import('./commands/sessions.ts');
        return await runStopSession(command, { out: process.stdout, err: process.stderr });
      }
      case 'archive-session': {
        const { runArchiveSession } = await import('./commands/sessions.ts');
        return await runArchiveSession(command, { out: process.stdout, err: process.stderr });
      }
      case 'rename-session': {
        const { runUpdateSession } = await import('./commands/sessions.ts');
        return await runUpdateSession({ sessionId: command.sessionId, title: command.title, json: command.json }, { out: process.stdout, err: process.stderr });
      }
      case 'group-session': {
        const { runUpdateSession } = await import('./commands/sessions.ts');
        return await runUpdateSession({ sessionId: command.sessionId, group: command.group, json: command.json }, { out: process.stdout, err: process.stderr });
      }
      case 'usage': {
        if (command.tree !== undefined) {
          const { runTreeUsage } = await import('./commands/budget.ts');
          return await runTreeUsage({ tree: command.tree, json: command.json }, { out: process.stdout, err: process.stderr });
        }
        const { runUsage } = await import('./commands/usage.ts');
        return await runUsage(command, { out: process.stdout, err: process.stderr });
      }
      case 'budget': {
        const { runBudget } = await import('./commands/budget.ts');
        return await runBudget(command, { out: process.stdout, err: process.stderr });
      }
      case 'inbox': {
        const { runInbox } = await import('./commands/inbox.ts');
        return await runInbox(command, { out: process.stdout, err: process.stderr });
      }
      case 'answer': {
        const { runAnswer } = await import('./commands/inbox.ts');
        return await runAnswer(command, { out: process.stdout, err: process.stderr });
      }
      case 'decide': {
        const { runDecide } = await import('./commands/inbox.ts');
        return await runDecide(command, { out: process.stdout, err: process.stderr });
      }
      case 'settings': {
        const { runSettings } = await import('./commands/settings.ts');
        return await runSettings(command, { out: process.stdout, err: process.stderr });
      }
      case 'pairing-code': {
        const { runPairingCode } = await import('./commands/pairings.ts');
        return await runPairingCode(command, { out: process.stdout, err: process.stderr });
      }
      case 'pair': {
        const { runPair } = await import('./commands/pairings.ts');
        return await runPair(command, { out: process.stdout, err: process.stderr });
      }
      case 'pairs': {
        const { runPairs } = await import('./commands/pairings.ts');
        return await runPairs(command, { out: process.stdout, err: process.stderr });
      }
      case 'unpair': {
        const { runUnpair } = await import('./commands/pairings.ts');
        return await runUnpair(command, { out: process.stdout, err: process.stderr });
      }
      case 'users': {
        const { runUsers } = await import('./commands/users.ts');
        return await runUsers(command, { out: process.stdout, err: process.stderr });
      }
      case 'add-user': {
        const { runAddUser } = await import('./commands/users.ts');
        return await runAddUser(command, { out: process.stdout, err: process.stderr });
      }
      case 'remove-user': {
        const { runRemoveUser } = await import('./commands/users.ts');
        return await runRemoveUser(command, { out: process.stdout, err: process.stderr });
      }
      case 'user-token': {
        const { runUserToken } = await import('./commands/users.ts');
        return await runUserToken(command, { out: process.stdout, err: process.stderr });
      }
      case 'session-token': {
        const { runSessionToken } = await import('./commands/users.ts');
        return await runSessionToken(command, { out: process.stdout, err: process.stderr });
      }
      case 'whoami': {
        const { runWhoami } = await import('./commands/users.ts');
        return await runWhoami(command, { out: process.stdout, err: process.stderr });
      }
      case 'schedules': {
        const { runSchedules } = await import('./commands/schedules.ts');
        return await runSchedules(command, { out: process.stdout, err: process.stderr });
      }
      case 'subscriptions': {
        const { runSubscriptions } = await import('./commands/subscriptions.ts');
        return await runSubscriptions(command, { out: process.stdout, err: process.stderr });
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

/** Resolves once everything written to `stream` so far has been handed to the OS (a pipe may hold back). */
function drained(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed || !stream.writable) return resolve();
    stream.once('error', () => resolve());
    stream.write('', () => resolve());
  });
}

// A reader that stops early (`relay sessions --json | head -1`) closes the pipe: that is not a failure.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

// process.exit does not wait for a pipe to take what is queued: without the drain, `relay … --json | jq`
// loses everything past the pipe's 64 KiB buffer.
const exitCode = await main(process.argv.slice(2));
await Promise.all([drained(process.stdout), drained(process.stderr)]);
process.exit(exitCode);
