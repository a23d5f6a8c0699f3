import { loadServerPolicyFile, type McpServerPolicyState } from '../core';

/** The environment variable naming the server policy file (the `--policy` flag wins over it). */
export const POLICY_ENV = 'MCP_HARNESS_POLICY';

/** The policy file the command line or the environment names, if any (relative paths from the current folder). */
export function policyFileFrom(flag: string | undefined, env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
  const file = flag ?? (env[POLICY_ENV] || undefined);
  return file;
}

/**
 * Reads the server policy file. A broken one is reported on stderr and still handed to the
 * harness, which then starts no server: a policy that cannot be read must not allow everything.
 */
export async function readCliPolicy(file: string | undefined, say: (line: string) => void): Promise<McpServerPolicyState | undefined> {
  if (file === undefined) return undefined;
  const policy = await loadServerPolicyFile(file);
  if (!policy.ok) say(`server policy ${policy.error}; no server will start until the policy is fixed`);
  return policy;
}
