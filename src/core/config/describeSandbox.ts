import type { McpSandboxConfig } from './types';

/**
 * What a sandboxed server may reach, as lines for a tooltip or a listing, from its entry alone
 * (relative paths are the server's working directory's).
 */
export function describeSandbox(sandbox: McpSandboxConfig): string[] {
  const denied = sandbox.filesystem?.denyRead ?? [];
  const writes = sandbox.filesystem?.allowWrite ?? [];
  const domains = sandbox.network?.allowedDomains ?? [];
  return [
    `Reads: the workspace and system folders, not the rest of your home folder${denied.length > 0 ? `, never ${denied.join(', ')}` : ''}`,
    `Writes: ${writes.length > 0 ? writes.join(', ') : 'nowhere'}`,
    `Network: ${domains.length > 0 ? domains.join(', ') : 'none'}`,
  ];
}
