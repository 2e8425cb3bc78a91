import type * as z from 'zod';
import { isSwitch } from './cli-flags.ts';
import type { OperatorPorts } from './operator-ports.ts';

interface CommandHelp {
  /** `[flags, meaning]`, in the order the usage names them; --stage is added to every one. */
  readonly flags: readonly (readonly [string, string])[];
  readonly note?: string;
}

type Run = (ports: OperatorPorts) => Promise<unknown>;

/** One operator command: its words, its help, its flags, and what it runs. */
export interface Command {
  /** The words that name it: `deal-file add`. */
  readonly name: string;
  readonly usage: string;
  /** One line: what it does. */
  readonly summary: string;
  /** What `<command> --help` adds: each flag with its meaning, then what to expect. */
  readonly help: CommandHelp;
  /** Flags it takes, besides --stage. */
  readonly flags: readonly string[];
  /** Those of its flags that take no value (`--dry-run`). */
  readonly switches: readonly string[];
  /** Checks the flags; the input for `run`, or the messages that say what is wrong. */
  parse(
    values: Record<string, string | undefined>,
  ): { ok: true; run: Run } | { ok: false; errors: string[] };
}

/** A result that reports something to look at: printed as any result, and exit code 3. */
export class Findings {
  readonly report: unknown;

  constructor(report: unknown) {
    this.report = report;
  }
}

/**
 * A result written as it is made, not as one JSON document: each chunk in turn, the next
 * only once the output has taken the last (an export of any size, in little memory).
 */
export class Streamed {
  readonly chunks: AsyncIterable<string>;

  constructor(chunks: AsyncIterable<string>) {
    this.chunks = chunks;
  }
}

/** A command from its flags' schema: its flags and switches are the schema's keys. */
export function defineCommand<
  S extends z.ZodType<unknown, Record<string, string | undefined>>,
>(spec: {
  name: string;
  usage: string;
  summary: string;
  help: CommandHelp;
  schema: S;
  run: (ports: OperatorPorts, input: z.output<S>) => Promise<unknown>;
}): Command {
  const shape = (spec.schema as unknown as { shape?: Record<string, unknown> }).shape;
  return {
    name: spec.name,
    usage: spec.usage,
    summary: spec.summary,
    help: spec.help,
    flags: Object.keys(shape ?? {}),
    switches: Object.entries(shape ?? {}).flatMap(([flag, schema]) =>
      isSwitch(schema) ? [flag] : [],
    ),
    parse: (values) => {
      const result = spec.schema.safeParse(values);
      if (!result.success) return { ok: false, errors: result.error.issues.map((i) => i.message) };
      return { ok: true, run: (ports) => spec.run(ports, result.data) };
    },
  };
}
