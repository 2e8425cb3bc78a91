/**
 * `npm start` as a developer runs it, for the tests that start the real thing: its own process
 * group, as a terminal gives it, and the developer's log settings, not the test run's (Vitest
 * sets POWERTOOLS_LOG_LEVEL). Every start is kept so a test that fails cannot leave one running.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { REPOSITORY_ROOT } from '#infra/local/stage/data-folder.ts';
import { waitLimit } from '#test/support/wait-limit.ts';

/** How long one `npm start` may take to come up: seconds when idle, far more on a busy machine. */
export const STARTS_WITHIN = waitLimit(120_000);
/** How long the console may take to show what a request or a delivery caused. */
export const SHOWS_WITHIN = waitLimit(30_000);

/** The banner's last line: the stage is up. */
const BANNER_END = 'Ctrl-C stops it.\n';
/** `GET /api/v1/user/me/file 200 12ms ListUserFiles Mx3bXjYAoAMEJ8w=` */
export const REQUEST_LINE = /^(GET|POST|PUT|PATCH|DELETE) (\/\S*) (\d{3}) (\d+)ms (\w+) (\S{15})$/;
/** A line a function wrote: `[FinalizeDirectUpload] {"level":"WARN",…}`. */
export const FUNCTION_LINE = /^\[[A-Z][A-Za-z]+\] ./;

export interface NpmStart {
  readonly child: ChildProcess;
  /** The exit code, or the signal that ended npm itself. */
  readonly exited: Promise<number | NodeJS.Signals | null>;
  /** Everything printed, stdout and stderr. */
  output(): string;
  /** What came after the banner, line by line. */
  lines(): string[];
  /** Waits until the output contains `text`. */
  waitFor(text: string, ms?: number): Promise<void>;
  /** Waits until a line after the banner satisfies `test`: that line. */
  waitForLine(test: (line: string) => boolean, what: string): Promise<string>;
  /** The banner's demo token for user 1. */
  demoToken(): string;
  /** Ctrl-C: SIGINT to the whole process group, and the wait for npm to end. */
  ctrlC(): Promise<number | NodeJS.Signals | null>;
}

const running: NpmStart[] = [];

/** `npm start` with `env` added to this process's environment, less its log settings. */
export function npmStart(env: Record<string, string>): NpmStart {
  const { POWERTOOLS_LOG_LEVEL: _level, LOG_LEVEL: _alias, ...inherited } = process.env;
  const child = spawn('npm', ['start'], {
    cwd: REPOSITORY_ROOT,
    env: { ...inherited, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => {
    child.once('exit', (code, signal) => {
      resolve(code ?? signal);
    });
  });
  const until = async <T>(found: () => T | undefined, what: string, ms: number): Promise<T> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const value = found();
      if (value !== undefined) return value;
      if (child.exitCode !== null) throw new Error(`npm start exited:\n${output}`);
      if (Date.now() > deadline) throw new Error(`no ${what} within ${String(ms)} ms:\n${output}`);
      await new Promise((resolve) => {
        setTimeout(resolve, 50);
      });
    }
  };
  const lines = () =>
    output.includes(BANNER_END)
      ? output
          .slice(output.indexOf(BANNER_END) + BANNER_END.length)
          .split('\n')
          .filter((line) => line !== '')
      : [];
  const started: NpmStart = {
    child,
    exited,
    output: () => output,
    lines,
    waitFor: (text, ms = STARTS_WITHIN) =>
      until(() => (output.includes(text) ? true : undefined), `"${text}"`, ms).then(() => {}),
    waitForLine: (test, what) => until(() => lines().find(test), what, SHOWS_WITHIN),
    demoToken: () => /Demo token for user 1[^\n]*\n {2}(eyJ[\w.-]+)\n/.exec(output)?.[1] ?? '',
    ctrlC: async () => {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
        process.kill(-child.pid, 'SIGINT');
      }
      return exited;
    },
  };
  running.push(started);
  return started;
}

/**
 * Stops every start still running: Ctrl-C, which stops its DynamoDB Local too; if that does
 * not end it, kill -9 to the group. For an `afterAll`.
 */
export async function stopEveryStart(): Promise<void> {
  for (const { child, exited } of running.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) continue;
    const group = -child.pid;
    process.kill(group, 'SIGINT');
    const timer = setTimeout(() => {
      process.kill(group, 'SIGKILL');
    }, waitLimit(30_000));
    await exited;
    clearTimeout(timer);
  }
}
