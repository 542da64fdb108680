/** A failure the user can act on: printed as one line, and the CLI exits with `exitCode`. */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly exitCode = 1,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
  }
}
