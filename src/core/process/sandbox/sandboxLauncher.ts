// The program a sandboxed stdio server runs under: `node sandbox-launcher.mjs <policy JSON> --
// <command> [args...]`. It is its own process because `@anthropic-ai/sandbox-runtime` keeps one
// policy per process (its network proxy judges every connection by it) and installs signal
// handlers, neither of which belongs in a host running several servers. It starts the runtime's
// proxies, runs the command under bubblewrap or sandbox-exec with the launcher's own stdin and
// stdout (MCP passes straight through), writes each refused access to stderr as a readable line
// (the server's log), and exits as the command exits. It never runs the command unsandboxed: a
// runtime that cannot start ends the launcher with the reason and status 78.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { errorMessage } from '../../base/errors';
import { describeViolation, shellQuote } from './describeViolation';

/** `EX_CONFIG`: the sandbox could not be set up, so nothing ran. */
export const SANDBOX_UNAVAILABLE_EXIT = 78;

function fatal(message: string): never {
  process.stderr.write(`sandbox: ${message}; the server was not started (it never runs unsandboxed)\n`);
  process.exit(SANDBOX_UNAVAILABLE_EXIT);
}

type Runtime = typeof import('@anthropic-ai/sandbox-runtime', { with: { 'resolution-mode': 'import' } });

function parseArgs(runtime: Runtime, argv: readonly string[]): { config: unknown; command: readonly string[] } {
  const [policy, separator, ...command] = argv;
  if (policy === undefined || separator !== '--' || command.length === 0) fatal('usage: sandbox-launcher <policy JSON> -- <command> [args...]');
  let config: unknown;
  try {
    config = JSON.parse(policy);
  } catch (err) {
    fatal(`the policy is not JSON (${errorMessage(err)})`);
  }
  const checked = runtime.SandboxRuntimeConfigSchema.safeParse(config);
  if (!checked.success) fatal(`the policy is not valid: ${checked.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return { config: checked.data, command };
}

/** Writes each violation the runtime records, once, as it is recorded. */
function reportViolations({ SandboxManager }: Runtime): void {
  const store = SandboxManager.getSandboxViolationStore();
  let reported = store.getTotalCount();
  store.subscribe(() => {
    const total = store.getTotalCount();
    const fresh = store.getViolations().slice(-Math.min(total - reported, 100));
    reported = total;
    for (const violation of fresh) process.stderr.write(`${describeViolation(violation.line)}\n`);
  });
}

/** Ends as the command ended, once the runtime has taken down its proxies and mount points. */
function exitLike({ SandboxManager }: Runtime, code: number | null, signal: NodeJS.Signals | null): void {
  SandboxManager.cleanupAfterCommand();
  void SandboxManager.reset()
    .catch(() => undefined)
    .finally(() => process.exit(signal ? 128 + (constants.signals[signal] ?? 1) : (code ?? 1)));
}

async function main(): Promise<void> {
  const runtime = await import('@anthropic-ai/sandbox-runtime');
  const { SandboxManager } = runtime;
  const { config, command } = parseArgs(runtime, process.argv.slice(2));
  try {
    await SandboxManager.initialize(config as Parameters<typeof SandboxManager.initialize>[0], undefined, true);
  } catch (err) {
    fatal(`cannot start: ${errorMessage(err)}`);
  }
  reportViolations(runtime);
  const wrapped = await SandboxManager.wrapWithSandbox(shellQuote(command), undefined, undefined, undefined, { commandId: 'server', commandText: command[0] });
  // Under Electron the host set this to run the launcher as Node; the server must not inherit it.
  if (process.versions.electron) delete process.env.ELECTRON_RUN_AS_NODE;
  const child = spawn(wrapped, { shell: true, stdio: 'inherit' });
  child.on('error', (err) => fatal(`could not run the sandbox: ${err.message}`));
  child.on('exit', (code, signal) => exitLike(runtime, code, signal));
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.on(signal, () => child.kill(signal));
  }
}

main().catch((err: unknown) => fatal(`failed: ${errorMessage(err)}`));
