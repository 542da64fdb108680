import { migrate } from './migrate.ts';

type Output = { write(text: string): unknown };

/**
 * `relay-migrate <migrationsDir>` with DATABASE_URL: prints each applied migration, or one error line.
 * Returns the exit code so the bin stays a one-liner and this stays testable.
 */
export async function runMigrateCli(args: string[], env: Record<string, string | undefined>, stdout: Output, stderr: Output): Promise<number> {
  const [migrationsDir] = args;
  const databaseUrl = env['DATABASE_URL'];
  if (migrationsDir === undefined || args.length !== 1) {
    stderr.write('usage: relay-migrate <migrationsDir>   (reads DATABASE_URL)\n');
    return 2;
  }
  if (databaseUrl === undefined || databaseUrl === '') {
    stderr.write('relay-migrate: DATABASE_URL is not set\n');
    return 2;
  }
  try {
    const applied = await migrate({ databaseUrl, migrationsDir });
    for (const name of applied) stdout.write(`applied ${name}\n`);
    if (applied.length === 0) stdout.write('no pending migrations\n');
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    stderr.write(`relay-migrate: ${message.replaceAll('\n', ' ')}\n`);
    return 1;
  }
}
