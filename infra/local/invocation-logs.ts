import { AsyncLocalStorage } from 'node:async_hooks';

/** Lambda hands back at most the last 4 KB of an invocation's log (`LogType: Tail`). */
export const LOG_TAIL_BYTES = 4096;

const capturing = new AsyncLocalStorage<string[]>();
let teed = false;

/**
 * The stage's stdout and stderr, teed: what code running under `captureLogs` writes still
 * reaches the terminal, and is kept for that invocation too. Handlers log through Powertools'
 * logger and `console`, which both write to these streams; an invocation's async work keeps
 * its store, so concurrent requests never see each other's lines.
 */
function teeStandardStreams(): void {
  if (teed) return;
  teed = true;
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
    stream.write = (chunk: unknown, ...rest: unknown[]) => {
      const lines = capturing.getStore();
      if (lines !== undefined) {
        lines.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString());
      }
      return write(chunk, ...rest);
    };
  }
}

/** An invocation's log: what it wrote to stdout or stderr, and the lines Lambda adds. */
export interface InvocationLog {
  /** Adds a line of Lambda's own (START, END, REPORT); the terminal does not get it. */
  note(line: string): void;
  /** Runs `work`, keeping every line it writes to stdout or stderr in this log. */
  capture<T>(work: () => Promise<T>): Promise<T>;
  text(): string;
}

export function newInvocationLog(): InvocationLog {
  teeStandardStreams();
  const lines: string[] = [];
  return {
    note: (line) => lines.push(`${line}\n`),
    capture: (work) => capturing.run(lines, work),
    text: () => lines.join(''),
  };
}

/** The last `LOG_TAIL_BYTES` of a log, base64, as Lambda's `X-Amz-Log-Result` carries it. */
export function logTail(log: string): string {
  const bytes = Buffer.from(log);
  return bytes.subarray(Math.max(0, bytes.length - LOG_TAIL_BYTES)).toString('base64');
}
