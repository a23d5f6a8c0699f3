import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { HARNESS_VERSION, loadMcpConfig, McpHarness } from '../core';
import { UsageError, type CliInterrupts, type CliOptions } from './CliOptions';
import { CliInputResolver } from './CliInputResolver';
import { CliAuthHost, defaultTokenFile, FileSecretStore, MemorySecretStore, openInBrowser, TOKEN_STORE_ENV } from './CliAuthHost';
import { cliHookOptions, defaultUserHooksFile } from './cliHooks';
import { runCall, runHooks, runList, runLogin, runLogout, runTools } from './commands';
import { runDiscover } from './discover';
import { runDoctor } from './doctor';
import { runPrompt, runPrompts, runRead, runResources } from './serverItems';
import { runServe } from './serve';
import { runSkill, runSkills } from './skills';
import { POLICY_ENV, policyFileFrom, readCliPolicy } from './cliPolicy';
import { CliAsks } from './CliAsks';
import { runTask, taskStoreFor } from './tasks';
import { errorMessage } from '../core/base/errors';

const USAGE = `mcp-harness ${HARNESS_VERSION}: connect to MCP servers and call their tools

Usage:
  mcp-harness list   [options]             servers: transport, state, tool count, error
  mcp-harness list --discover [options]    servers other agents configured (VS Code, Claude Code, Claude
                                           Desktop, Cursor): name, file:line, command or URL; starts nothing
  mcp-harness tools  [options]             every tool, by the name to call it with
  mcp-harness call   TOOL ['{"json":"args"}'] [--timeout MS] [--detach] [options]
                                           a call that becomes a task is waited for with its progress
                                           (Ctrl-C cancels it); --detach prints the task's id at once
                                           and leaves it running
  mcp-harness task   ID [--server NAME] [--no-wait]   a task's state; a running one is waited for (Ctrl-C
                                           stops waiting, the task keeps running), a finished one's
                                           result is shown
  mcp-harness resources [options]          every server's resources and resource templates
  mcp-harness read   URI [--server NAME]   a resource's contents (text; binary summarised, --json whole)
  mcp-harness prompts [options]            every server's prompts, as SERVER.PROMPT with their arguments
  mcp-harness prompt SERVER.PROMPT ['{"arg":"value"}']   a prompt's messages
  mcp-harness skills [options]             every skill the servers offer (listed only; no file is read)
  mcp-harness skill  SERVER NAME           a skill's instructions, after every file matched its manifest
                                           (SHA-256 digest and size); exits 1 when the skill is refused
  mcp-harness hooks  [options]             the hooks that run around each call, and where they come from
  mcp-harness doctor [options]             find what keeps servers from starting, and the fix
  mcp-harness serve  [--http [HOST:]PORT] [--gateway] ...   be an MCP server (see serve --help)
  mcp-harness login  SERVER [options]      sign in to an HTTP server with OAuth (opens the browser); gives up
                                           after 5 minutes, or when the authorization server does not
                                           answer a request within 15 s (half the server's startupTimeoutMs
                                           when that is shorter)
  mcp-harness logout SERVER [options]      forget a server's OAuth tokens and registration

Options:
  --workspace DIR    folder with .vscode/mcp.json, .mcp.json or .harness/mcp.json (default: current folder)
  --config FILE      another config file (repeatable; wins over the workspace files)
  --json             machine-readable output
  --timeout MS       for call, read, prompt: time without an answer or progress (default: the server's, else 60000)
  --server NAME      for read: the server to read the URI from (when no single server lists it)
  --inherit-env      give stdio servers (and hooks) the whole environment, not just the safe variables
  --hooks FILE       another hooks file (repeatable), in Claude Code's format: {"hooks": {"PreToolUse": [...]}}
  --claude-hooks     also run the hooks of the workspace's .claude/settings.json
  --policy FILE      the organisation's server policy (JSON; default \$${POLICY_ENV}): servers outside it
                     are listed but never started; a policy that cannot be read lets no server start
  --trace            print JSON-RPC traffic to stderr
  -h, --help         this text
  -v, --version      the version

Exit codes: 0 success; 1 the tool returned an error or the call failed (call), or problems found
(doctor); 2 bad usage, an unknown tool or invalid arguments; 3 the tool's server is not running (call). \${input:id} values come from MCP_HARNESS_INPUT_<ID> or a prompt.
Hooks: .harness/hooks.json of the workspace, ${defaultUserHooksFile()}, and --hooks files.
OAuth tokens are kept in ${defaultTokenFile() ?? '(memory only)'} (mode 0600); ${TOKEN_STORE_ENV}=off keeps them in memory, any other value names the file.`;

async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'serve') return runServe(argv.slice(1));
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      workspace: { type: 'string' },
      config: { type: 'string', multiple: true },
      json: { type: 'boolean', default: false },
      timeout: { type: 'string' },
      server: { type: 'string' },
      'inherit-env': { type: 'boolean', default: false },
      trace: { type: 'boolean', default: false },
      hooks: { type: 'string', multiple: true },
      'claude-hooks': { type: 'boolean', default: false },
      discover: { type: 'boolean', default: false },
      policy: { type: 'string' },
      detach: { type: 'boolean', default: false },
      'no-wait': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
      version: { type: 'boolean', short: 'v', default: false },
    },
  });
  if (values.help) return print(USAGE);
  if (values.version) return print(HARNESS_VERSION);
  const [command, ...rest] = positionals;
  if (values.discover && command !== 'list') throw new UsageError('--discover goes with list only');
  if (values.detach && command !== 'call') throw new UsageError('--detach goes with call only');
  if (values['no-wait'] && command !== 'task') throw new UsageError('--no-wait goes with task only');
  if (!command) throw new UsageError('missing command (list, tools, call, task, resources, read, prompts, prompt, skills, skill, hooks, doctor or serve)');
  const options: CliOptions = {
    workspace: path.resolve(values.workspace ?? process.cwd()),
    configFiles: (values.config ?? []).map((f) => path.resolve(f)),
    json: values.json,
    timeoutMs: values.timeout === undefined ? undefined : parseTimeout(values.timeout),
    inheritEnv: values['inherit-env'],
    trace: values.trace,
    hookFiles: (values.hooks ?? []).map((f) => path.resolve(f)),
    claudeHooks: values['claude-hooks'],
    policyFile: resolvePath(policyFileFrom(values.policy)),
    detach: values.detach,
  };
  switch (command) {
    case 'list':
      if (values.discover) {
        if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}"`);
        return runDiscover(options);
      }
      return withHarness(options, (h) => runList(h, options), rest);
    case 'tools':
      return withHarness(options, (h) => runTools(h, options), rest);
    case 'hooks':
      return withHarness(options, (h) => runHooks(h, options), rest, { autoStart: false, allowSignIn: false });
    case 'call':
      if (rest.length < 1 || rest.length > 2) throw new UsageError('call needs TOOL and optionally one JSON argument object');
      return withHarness(options, (h, interrupts) => runCall(h, options, rest[0], parseToolArgs(rest[1]), interrupts), []);
    case 'task':
      if (rest.length !== 1) throw new UsageError('task needs the task ID (as "call --detach" printed it)');
      return withHarness(options, (h) => runTask(h, options, rest[0], values.server, !values['no-wait']), []);
    case 'resources':
      return withHarness(options, (h) => runResources(h, options), rest);
    case 'prompts':
      return withHarness(options, (h) => runPrompts(h, options), rest);
    case 'read':
      if (rest.length !== 1) throw new UsageError('read needs the URI of one resource');
      return withHarness(options, (h) => runRead(h, options, rest[0], values.server), []);
    case 'prompt':
      if (rest.length < 1 || rest.length > 2) throw new UsageError('prompt needs SERVER.PROMPT and optionally one JSON object of arguments');
      return withHarness(options, (h) => runPrompt(h, options, rest[0], parseToolArgs(rest[1])), []);
    case 'skills':
      return withHarness(options, (h) => runSkills(h, options), rest);
    case 'skill':
      if (rest.length !== 2) throw new UsageError('skill needs SERVER and the skill NAME');
      return withHarness(options, (h) => runSkill(h, options, rest[0], rest[1]), []);
    case 'login':
    case 'logout': {
      if (rest.length !== 1) throw new UsageError(`${command} needs the SERVER name`);
      const name = rest[0];
      const run = command === 'login' ? runLogin : runLogout;
      return withHarness(options, (h) => run(h, name), [], { autoStart: false, allowSignIn: command === 'login' });
    }
    case 'doctor': {
      const config = await loadMcpConfig({ workspaceFolders: [options.workspace], configFiles: options.configFiles });
      return withHarness(options, (h) => runDoctor(h, config, options), rest);
    }
    default:
      throw new UsageError(`unknown command "${command}" (expected list, tools, call, task, resources, read, prompts, prompt, skills, skill, hooks, doctor, login, logout or serve)`);
  }
}

async function withHarness(
  options: CliOptions,
  run: (h: McpHarness, interrupts: CliInterrupts) => Promise<number>,
  extra: string[],
  auth: { autoStart: boolean; allowSignIn: boolean } = { autoStart: true, allowSignIn: false },
): Promise<number> {
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  const tokenFile = defaultTokenFile();
  const authHost = new CliAuthHost({
    secrets: tokenFile ? new FileSecretStore(tokenFile) : new MemorySecretStore(),
    allowSignIn: auth.allowSignIn,
    open: (url) => openInBrowser(url),
    say: (line) => process.stderr.write(`${line}\n`),
  });
  const serverPolicy = await readCliPolicy(options.policyFile, (line) => process.stderr.write(`mcp-harness: ${line}\n`));
  const interactive = process.stdin.isTTY === true && process.stderr.isTTY === true;
  const cliAsks = new CliAsks();
  const harness = new McpHarness({
    serverPolicy,
    authHost,
    autoStart: auth.autoStart,
    workspaceFolder: options.workspace,
    configFiles: options.configFiles,
    inheritEnv: options.inheritEnv,
    inputResolver: new CliInputResolver(process.env, interactive),
    traceEnabled: () => options.trace,
    hooks: cliHookOptions(options),
    // Tasks a detached call left running, so "task ID" finds them.
    taskStore: taskStoreFor(options.workspace),
    // Forms and pages are asked on the terminal; without one they are declined, saying so.
    asks: {
      prompter: () => (interactive ? cliAsks : undefined),
      openUrl: (url) => openInBrowser(new URL(url)),
      unattendedReason: 'not an interactive terminal',
      log: (server, message) => process.stderr.write(`${server}: ${message}\n`),
    },
  });
  // Listening before start() so the trace begins with the first byte of the handshake.
  if (options.trace) {
    harness.onDidLog((e) => e.source === 'rpc' && process.stderr.write(`[${e.server}] ${e.message}\n`));
  }
  // Ctrl-C must still take the servers down with us (a command may finish something first).
  let before: (() => Promise<void>) | undefined;
  const interrupt = () => void (before?.() ?? Promise.resolve()).then(() => harness.dispose()).then(() => process.exit(130));
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  try {
    await harness.start();
    return await run(harness, { onInterrupt: (fn) => (before = fn) });
  } finally {
    await harness.dispose();
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
  }
}

function resolvePath(file: string | undefined): string | undefined {
  return file === undefined ? undefined : path.resolve(file);
}

function parseToolArgs(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`arguments are not valid JSON: ${errorMessage(err)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError('arguments must be a JSON object, e.g. \'{"path": "README.md"}\'');
  }
  return value as Record<string, unknown>;
}

function parseTimeout(text: string): number {
  const ms = Number(text);
  if (!Number.isInteger(ms) || ms <= 0) throw new UsageError(`--timeout expects a positive number of milliseconds, got "${text}"`);
  return ms;
}

function print(text: string): number {
  process.stdout.write(text + '\n');
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    const usage = err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    process.stderr.write(`mcp-harness: ${errorMessage(err)}\n`);
    if (usage) process.stderr.write(`Run "mcp-harness --help" for usage.\n`);
    process.exitCode = usage ? 2 : 1;
  },
);
