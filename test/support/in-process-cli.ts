import { Readable } from 'node:stream';
import type { CommandLineIo } from '#infra/command-line.ts';

/** A CLI's run function: `runToken`, `runEvent`, `runInvoke`, `runSmoke`. */
type CliRun = (args: readonly string[], io: CommandLineIo) => Promise<number>;

/**
 * A CLI run in the test's own process, as a test reads one it spawned: its exit code and what
 * it wrote. A process of its own costs a few hundred milliseconds of CPU to load its modules;
 * each CLI's tests keep one run as a process, which proves its entry point.
 */
export async function runInProcess(
  run: CliRun,
  args: readonly string[],
  options: { readonly env?: Record<string, string>; readonly input?: string } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await run(args, {
    env: { ...options.env },
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    stdin: Readable.from(options.input === undefined ? [] : [Buffer.from(options.input)]),
  });
  return { code, stdout, stderr };
}
