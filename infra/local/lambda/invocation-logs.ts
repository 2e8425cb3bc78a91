import { AsyncLocalStorage } from 'node:async_hooks';

/** Lambda hands back at most the last 4 KB of an invocation's log (`LogType: Tail`). */
const LOG_TAIL_BYTES = 4096;

/** Who is writing: the function an invocation runs, and its log when one is being kept. */
const writing = new AsyncLocalStorage<{ functionName?: string; lines?: string[] }>();
let teed = false;
let prefixing = false;

/**
 * stdout and stderr, teed: an invocation's lines reach the terminal and its own log; its
 * async store keeps concurrent requests' lines apart.
 */
function teeStandardStreams(): void {
  if (teed) return;
  teed = true;
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
    stream.write = (chunk: unknown, ...rest: unknown[]) => {
      const writer = writing.getStore();
      if (writer === undefined) return write(chunk, ...rest);
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString();
      writer.lines?.push(text);
      if (!prefixing || writer.functionName === undefined) return write(chunk, ...rest);
      // The text is a string now: an encoding given for the chunk no longer applies.
      const callbacks = rest.filter((arg) => typeof arg === 'function');
      return write(text.replace(/^(?=.)/gm, `[${writer.functionName}] `), ...callbacks);
    };
  }
}

/** From now on each terminal line starts with its function's name (`[ListUserFiles] …`). */
export function prefixConsoleWithFunctionNames(): void {
  prefixing = true;
  teeStandardStreams();
}

/** Runs one invocation of `functionName`: what it writes is that function's. */
export function attributeLogs<T>(functionName: string, work: () => Promise<T>): Promise<T> {
  return writing.run({ ...writing.getStore(), functionName }, work);
}

/**
 * Runs `work` as nobody's: for timers and deliveries an invocation only set going (a queued
 * message's delivery), whose lines belong to whoever runs next, not to the sender.
 */
export function outsideInvocations<T>(work: () => T): T {
  return writing.exit(work);
}

/** An invocation's log: what `capture`'s work writes to stdout or stderr. */
export function newInvocationLog() {
  teeStandardStreams();
  const lines: string[] = [];
  return {
    capture: <T>(work: () => Promise<T>): Promise<T> =>
      writing.run({ ...writing.getStore(), lines }, work),
    text: () => lines.join(''),
  };
}

/** The last `LOG_TAIL_BYTES` of a log, base64, as Lambda's `X-Amz-Log-Result` carries it. */
export function logTail(log: string): string {
  const bytes = Buffer.from(log);
  return bytes.subarray(Math.max(0, bytes.length - LOG_TAIL_BYTES)).toString('base64');
}
