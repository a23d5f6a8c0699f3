import * as readline from 'node:readline';
import { Writable } from 'node:stream';
import type { IMcpInputResolver, McpInputDefinition } from '../core';

/**
 * Values for `${input:id}` from the terminal: the variable `MCP_HARNESS_INPUT_<ID>` when set,
 * else a prompt on an interactive terminal (typing hidden for passwords).
 */
export class CliInputResolver implements IMcpInputResolver {
  private readonly _cache = new Map<string, string>();

  constructor(
    private readonly _env: Readonly<Record<string, string | undefined>>,
    private readonly _interactive: boolean,
  ) {}

  async resolveInput(input: McpInputDefinition, server: string): Promise<string | undefined> {
    const cached = this._cache.get(input.id);
    if (cached !== undefined) return cached;
    const fromEnv = this._env[inputVariableName(input.id)];
    const value = fromEnv ?? (this._interactive ? await prompt(input, server) : undefined);
    if (value !== undefined) this._cache.set(input.id, value);
    return value;
  }
}

/** `api-key` → `MCP_HARNESS_INPUT_API_KEY`. */
export function inputVariableName(id: string): string {
  return `MCP_HARNESS_INPUT_${id.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

function prompt(input: McpInputDefinition, server: string): Promise<string | undefined> {
  const question = `${server}: ${input.description ?? input.id}${input.default ? ` [${input.default}]` : ''}: `;
  // For a password, echo goes to a stream that drops it.
  const output = input.password ? new Writable({ write: (_chunk, _enc, done) => done() }) : process.stderr;
  const rl = readline.createInterface({ input: process.stdin, output, terminal: true });
  process.stderr.write(question);
  return new Promise((resolve) => {
    rl.question('', (answer) => {
      if (input.password) process.stderr.write('\n');
      rl.close();
      resolve(answer === '' ? input.default : answer);
    });
    rl.on('SIGINT', () => {
      rl.close();
      resolve(undefined);
    });
  });
}
