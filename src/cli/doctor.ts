import { diagnoseServer, formatConfigError, type McpConfigLoadResult, type McpDiagnostic, type McpHarness } from '../core';
import type { CliOptions } from './CliOptions';

/** `doctor`: static checks per server, then what happened when connecting. Exit 1 when anything is wrong. */
export async function runDoctor(harness: McpHarness, config: McpConfigLoadResult, options: CliOptions): Promise<number> {
  const env = process.env;
  const findings: McpDiagnostic[] = [];
  for (const def of config.servers) findings.push(...(await diagnoseServer(def, { env })));
  for (const s of harness.servers()) {
    if (s.state === 'running') findings.push({ server: s.name, level: 'ok', message: `connected over ${s.transport}: ${s.tools.length} tools` });
    else if (s.state === 'auth_required') {
      findings.push({ server: s.name, level: 'error', message: `not signed in: ${s.error}`, fix: `run "mcp-harness login ${s.name}" to sign in with OAuth` });
    } else if (s.state === 'error' && !findings.some((f) => f.server === s.name && f.level === 'error')) {
      const stderr = s.stderrTail.slice(-3).join('\n    ');
      findings.push({ server: s.name, level: 'error', message: `failed to start: ${s.error}${stderr ? `\n    ${stderr}` : ''}`, fix: 'run the command by hand to see its output, or check the server log' });
    }
  }
  const configErrors = config.errors.map((e) => formatConfigError(e, options.workspace));
  const bad = findings.some((f) => f.level === 'error') || configErrors.length > 0;
  if (options.json) {
    process.stdout.write(JSON.stringify({ ok: !bad, findings, configErrors }, null, 2) + '\n');
    return bad ? 1 : 0;
  }
  if (config.servers.length === 0) process.stdout.write(`No MCP servers configured in ${options.workspace}.\n`);
  const mark = { ok: '✓', warning: '!', error: '✗' } as const;
  for (const def of config.servers) {
    process.stdout.write(`${def.name} (${def.type ?? '?'}, ${def.origin.file})\n`);
    for (const f of findings.filter((x) => x.server === def.name)) {
      process.stdout.write(`  ${mark[f.level]} ${f.message}\n`);
      if (f.fix && f.level !== 'ok') process.stdout.write(`    fix: ${f.fix}\n`);
    }
  }
  if (configErrors.length) process.stdout.write(`\nConfig errors:\n${configErrors.map((l) => `  ✗ ${l}`).join('\n')}\n`);
  process.stdout.write(bad ? '\nProblems found.\n' : '\nNo problems found.\n');
  return bad ? 1 : 0;
}
