/**
 * Every CLI explains itself: `--help` prints usage on stdout and exits 0 without doing
 * anything; a wrong argument is refused with exit 2 before anything runs. Each script's
 * `--help` runs as a process on the project's Node, as `npm run` runs it (without npm's half
 * second); the CLIs with a run function (`runAdmin`, `runToken`, …) are refused in this process.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compactVerify, decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '#infra/admin/commands.ts';
import { runAdmin } from '#infra/admin/run-admin.ts';
import { LOCAL_OVERRIDES } from '#infra/local/stage/local-stage-variables.ts';
import { API_ROUTES, FUNCTION_ENTRIES } from '#functions/service-functions.ts';
import { REPOSITORY_ROOT } from '#infra/local/stage/data-folder.ts';
import { LOCAL_STAGE_VARIABLES } from '#infra/local/stage/local-stage-variables.ts';
import { runEvent } from '#infra/local/cli/event-cli.ts';
import { runInvoke } from '#infra/local/cli/invoke-cli.ts';
import { runToken } from '#infra/local/cli/token-cli.ts';
import { loadIdentityProvider } from '#infra/local/gateway/identity-provider.ts';
import { runSmoke } from '#infra/smoke/smoke.ts';
import { cliEnvironment } from '#test/support/cli-environment.ts';
import { runInProcess } from '#test/support/in-process-cli.ts';

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'cli-help-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

function node(script: string, args: readonly string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [join(REPOSITORY_ROOT, script), ...args],
      { cwd: REPOSITORY_ROOT, env: cliEnvironment(env) },
      (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr });
      },
    );
  });
}

describe.concurrent('npm start -- --help', () => {
  // A folder of its own: the token tests write beside it, at the same time.
  let home: string;
  beforeAll(async () => {
    home = await mkdtemp(join(scratch, 'start-'));
  });

  it('prints every variable the stage reads, and starts nothing', async () => {
    const dataDir = join(home, 'never-made');
    const result = await node('infra/local/stage/start.ts', ['--help'], {
      LOCAL_DATA_DIR: dataDir,
      PORT: '1',
    });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/^usage: npm start \[-- --help\]\n/);
    for (const variable of LOCAL_STAGE_VARIABLES) {
      expect(result.stdout).toContain(`  ${variable.name.padEnd(24)} ${variable.default}`);
    }
    expect(await readdir(home)).toEqual([]);
  });

  it('refuses any argument with exit 2: settings are environment variables', async () => {
    const env = { LOCAL_DATA_DIR: join(home, 'never-made') };
    const { stdout: usage } = await node('infra/local/stage/start.ts', ['--help']);
    const refused = (mistake: string) =>
      `npm start: ${mistake}; settings are environment variables\n\n${usage}`;
    const refusals: [readonly string[], string][] = [
      [['--port', '19138'], refused('unknown option --port')],
      [['--verbose'], refused('unknown option --verbose')],
      [['now'], refused('unexpected argument "now"')],
    ];
    for (const [args, stderr] of refusals) {
      const result = await node('infra/local/stage/start.ts', args, env);
      expect({ args, ...result }).toEqual({ args, code: 2, stdout: '', stderr });
    }
    expect(await readdir(home)).toEqual([]);
  });
});

describe.concurrent('admin <command> --help', () => {
  // In process, as admin.ts runs it: one process per command would cost half a second each.
  it.each(COMMANDS.map((command) => command.name))(
    '%s --help prints its usage, flags and --stage',
    async (name) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runAdmin([...name.split(' '), '--help'], {
        env: {},
        out: (text) => out.push(text),
        err: (text) => err.push(text),
      });
      const command = COMMANDS.find((c) => c.name === name);
      expect({ code, err }).toEqual({ code: 0, err: [] });
      expect(out.join('\n')).toContain(
        `usage: npm run --silent admin -- ${command?.usage ?? ''} [--stage <stage>]\n\n${command?.summary ?? ''}\n\nflags:\n`,
      );
      expect(out.join('\n')).toMatch(/\n {2}--stage <stage> +local \(default/);
    },
  );

  it('--help alone lists every command, and points to <command> --help', async () => {
    const result = await node('infra/admin/admin.ts', ['--help']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    for (const command of COMMANDS) {
      expect(result.stdout).toContain(`  ${command.name.padEnd(20)} ${command.summary}\n`);
    }
    expect(result.stdout).toContain('`<command> --help` shows a command');
  });
});

describe.concurrent('admin: a flag the command does not take', () => {
  /** What `<command> --help` prints, in process. */
  async function helpOf(words: readonly string[]): Promise<string> {
    const out: string[] = [];
    await runAdmin([...words, '--help'], { env: {}, out: (text) => out.push(text), err: () => {} });
    return out.join('\n');
  }

  it('`group add --grp 7`, as a process: names the command, shows its usage, exit 2', async () => {
    const help = await helpOf(['group', 'add']);
    const result = await node('infra/admin/admin.ts', ['group', 'add', '--grp', '7']);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `admin: group add: unknown option --grp\n\n${help}\n`,
    });
  });

  // In process: one process per command would cost half a second each.
  it.each(COMMANDS.map((command) => command.name))(
    '%s: an unknown flag, a flag without its value, a switch with one',
    async (name) => {
      const words = name.split(' ');
      const command = COMMANDS.find((c) => c.name === name);
      const help = await helpOf(words);
      const valued = command?.flags.find((flag) => !command.switches.includes(flag)) ?? 'stage';
      const cases: [readonly string[], string][] = [
        [['--grp', '7'], 'unknown option --grp'],
        [['-x'], 'unknown option -x'],
        [[`--${valued}`], `--${valued} needs a value`],
        [
          [`--${valued}`, '-3'],
          `--${valued} needs a value (one that starts with "-" is written --${valued}=-3)`,
        ],
        ...(command?.switches ?? []).map((flag): [string[], string] => [
          [`--${flag}=yes`],
          `--${flag} takes no value`,
        ]),
        // Another command's flag is as unknown here.
        ...(command?.flags.includes('role') === true
          ? []
          : [[['--role', 'viewer'], 'unknown option --role'] as [string[], string]]),
      ];
      for (const [args, message] of cases) {
        const out: string[] = [];
        const err: string[] = [];
        const code = await runAdmin([...words, ...args], {
          env: {},
          out: (text) => out.push(text),
          err: (text) => err.push(text),
        });
        expect({ args, code, out, err }).toEqual({
          args,
          code: 2,
          out: [],
          err: [`admin: ${name}: ${message}\n\n${help}`],
        });
      }
    },
  );

  it('an unknown flag and no command: the flag, with the list of commands', async () => {
    const err: string[] = [];
    const usage: string[] = [];
    await runAdmin(['--help'], { env: {}, out: (text) => usage.push(text), err: () => {} });
    const code = await runAdmin(['--grp', '7'], {
      env: {},
      out: () => {},
      err: (text) => err.push(text),
    });
    expect({ code, err }).toEqual({
      code: 2,
      err: [`admin: unknown option --grp\n\n${usage.join('')}`],
    });
  });
});

describe.concurrent('token', () => {
  it('takes --expires-in=-60, and gives a token that has expired, signed with the stage’s key', async () => {
    const dataDir = join(scratch, 'idp');
    const stageKey = await loadIdentityProvider(dataDir); // as the stage makes it when it starts
    const args = ['--user', '7', '--expires-in=-60'];
    const result = await runInProcess(runToken, args, { env: { LOCAL_DATA_DIR: dataDir } });
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    const token = result.stdout.trim();
    await compactVerify(token, stageKey.publicKey);
    const { exp, sub } = decodeJwt(token);
    expect(sub).toBe('7');
    expect(exp).toBeLessThan(Date.now() / 1000);
  });

  it('refuses in one line a folder no stage has started on (exit 1), and makes nothing there', async () => {
    const empty = await mkdtemp(join(scratch, 'no-stage-'));
    const missing = join(scratch, 'never-made');
    for (const dataDir of [empty, missing]) {
      const result = await runInProcess(runToken, ['--user', '1'], {
        env: { LOCAL_DATA_DIR: dataDir },
      });
      expect(result).toEqual({
        code: 1,
        stdout: '',
        stderr: `token: no local stage has started on ${dataDir} (it holds no identity key); start one with npm start, or set LOCAL_DATA_DIR to the folder of the one you started\n`,
      });
    }
    expect(await readdir(empty)).toEqual([]);
    await expect(readdir(missing)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('--help prints its usage; a bad value is exit 2', async () => {
    const help = await node('infra/local/cli/token-cli.ts', ['--help']);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/^usage: npm run --silent token -- --user <positive integer>/);
    const bad = await runInProcess(runToken, ['--user', '7', '--expires-in', 'soon'], {
      env: { LOCAL_DATA_DIR: join(scratch, 'idp') },
    });
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/^token: --expires-in must be whole seconds, got "soon"\n/);
    const unknown = await runInProcess(runToken, ['--usr', '7']);
    expect(unknown).toEqual({
      code: 2,
      stdout: '',
      stderr: `token: unknown option --usr\n\n${help.stdout}\n`,
    });
  });
});

describe.concurrent('smoke', () => {
  it('an unknown option is named, with the usage (exit 2), and nothing is called', async () => {
    const help = await node('infra/smoke/smoke.ts', ['--help']);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    const unknown = await runInProcess(runSmoke, ['--urll', 'http://127.0.0.1:1']);
    expect(unknown).toEqual({
      code: 2,
      stdout: '',
      stderr: `npm run smoke: unknown option --urll\n\n${help.stdout}`,
    });
  });
});

describe.concurrent('event and invoke', () => {
  it('event --help lists its kinds; a bad argument is exit 2 and prints no event', async () => {
    const help = await node('infra/local/cli/event-cli.ts', ['--help']);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/^usage: npm run --silent event -- <kind> \[options\]\n/);
    for (const kind of ['http <METHOD> <path>', 's3-put --key', 'sqs --body']) {
      expect(help.stdout).toContain(`\n  ${kind}`);
    }
    const refusals: [readonly string[], string][] = [
      [['http', 'GET'], 'http needs a method and a path'],
      [['http', 'GET', '/x', '--body', '{nope'], '--body must be JSON (or @<file>), got {nope'],
      [
        ['http', 'GET', '/x', '--header', 'novalue'],
        '--header must be <name:value>, got "novalue"',
      ],
      [['s3-put', '--key', 'k', '--size', 'big'], '--size must be bytes, got "big"'],
      [['sqs', '--key', 'k'], 'sqs takes no --key'],
    ];
    for (const [args, message] of refusals) {
      const refused = await runInProcess(runEvent, args, {
        env: { LOCAL_DATA_DIR: join(scratch, 'events') },
      });
      expect(refused.code).toBe(2);
      expect(refused.stdout).toBe('');
      expect(refused.stderr.startsWith(`event: ${message}\n\nusage: `)).toBe(true);
    }
    // An unknown option, in the words every CLI uses (test/unit/command-line.test.ts).
    const unknown = await runInProcess(runEvent, ['http', 'GET', '/x', '--usr', '5']);
    expect(unknown).toEqual({
      code: 2,
      stdout: '',
      stderr: `event: unknown option --usr\n\n${help.stdout}`,
    });
  });

  it('event http refuses a path or method no route takes, and lists the routes (exit 2)', async () => {
    const env = { LOCAL_DATA_DIR: join(scratch, 'events') };
    const tail = '; the routes:';
    const routes = API_ROUTES.map((route) => [`${route.method} ${route.path}`, route.functionId]);
    for (const [args, firstLine] of [
      [
        ['http', 'GET', '/api/v1/user/me/fil'],
        `event: no route takes GET /api/v1/user/me/fil${tail}`,
      ],
      [
        ['http', 'post', '/api/v1/user/me/file/3?x=1', '--user', '5'],
        `event: no route takes POST /api/v1/user/me/file/3${tail}`,
      ],
    ] as const) {
      const refused = await runInProcess(runEvent, args, { env });
      expect({ args, code: refused.code, stdout: refused.stdout }).toEqual({
        args,
        code: 2,
        stdout: '',
      });
      const [head, blank, ...listed] = (refused.stderr.split('\n\nusage:')[0] ?? '').split('\n');
      expect({ head, blank }).toEqual({ head: firstLine, blank: '' });
      expect(listed.map((line) => /^ {2}(\S+ \S+) +(\w+)$/.exec(line)?.slice(1))).toEqual(routes);
    }
  });

  it('invoke --help lists every function; an unknown option is exit 2', async () => {
    const help = await node('infra/local/cli/invoke-cli.ts', ['--help']);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/^usage: npm run --silent invoke -- <FunctionId> /);
    for (const functionId of FUNCTION_ENTRIES.keys()) {
      expect(help.stdout).toContain(`\n  ${functionId}\n`);
    }
    const unknown = await runInProcess(runInvoke, ['ListUserFiles', '--evnt', '-']);
    expect(unknown).toEqual({
      code: 2,
      stdout: '',
      stderr: `invoke: unknown option --evnt\n\n${help.stdout}`,
    });
  });
});

describe.concurrent('bench', () => {
  it('--help names the parts and runs nothing; an unknown part is exit 2', async () => {
    const help = await node('test/bench/bench.ts', ['--help']);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/^usage: npm run bench \[-- <part>\.\.\.\]\n/);
    for (const part of ['cold-start', 'cpu', 'tokens', 'listing', 'uploads', 'load']) {
      expect(help.stdout).toContain(`\n  ${part} `);
    }
    const unknown = await node('test/bench/bench.ts', ['nonsense']);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(/^bench: unknown part "nonsense"; nothing was run\n\nusage: /);
    // One good part beside a bad one runs nothing either.
    const mixed = await node('test/bench/bench.ts', ['cpu', 'nonsense']);
    expect(mixed).toMatchObject({ code: 2, stdout: '' });
  });
});

describe('the variables, as --help lists them', () => {
  it('every variable the stage reads is in --help, with the default it applies', () => {
    const names = LOCAL_STAGE_VARIABLES.map((variable) => variable.name);
    expect(names).toEqual(expect.arrayContaining(Object.keys(LOCAL_OVERRIDES.shape)));
    for (const [name, value] of Object.entries(LOCAL_OVERRIDES.parse({}))) {
      const listed = LOCAL_STAGE_VARIABLES.find((variable) => variable.name === name);
      expect({ name, default: listed?.default }).toEqual({ name, default: String(value) });
    }
  });
});
