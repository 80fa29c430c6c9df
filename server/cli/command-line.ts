/**
 * The command-line tools' shared reading of their arguments: Node's `parseArgs`, with its
 * mistakes turned into a `UsageError` each tool prints above a pointer to `--help`.
 *
 * ```ts
 * const { values, positionals } = readCommandLine(argv, { out: { type: 'string' } }, { positionals: true });
 * if (!values.out) throw new UsageError('missing --out <file>');
 * ```
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A mistake in the command line: printed with a pointer to --help. */
export class UsageError extends Error {}

type Flags = NonNullable<ParseArgsConfig['options']>;

/** The flags' values (and, when allowed, the positionals); an unknown or malformed flag is a UsageError. */
export const readCommandLine = <const F extends Flags>(argv: string[], options: F, { positionals = false } = {}) => {
  try {
    return parseArgs({ args: argv, options, allowPositionals: positionals, strict: true });
  } catch (error) {
    // Node's own wording for an unknown option explains positional escaping, which is not the mistake here.
    const { code, message } = error as NodeJS.ErrnoException;
    throw new UsageError(code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? `unknown option ${/'([^']+)'/.exec(message)?.[1]}` : message);
  }
};

/**
 * A tool's options read by `read` (null: help was asked for), or its exit code: 0 after printing
 * the usage, 1 after saying what was wrong with the command line.
 */
export const optionsOrExit = <O>(tool: string, usage: string, read: () => O | null): O | 0 | 1 => {
  let options: O | null;
  try {
    options = read();
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${tool}: ${error.message}\nRun with --help for usage.\n`);
    return 1;
  }
  if (options !== null) return options;
  process.stdout.write(usage);
  return 0;
};
