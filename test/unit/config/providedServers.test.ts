import { describe, expect, it } from 'vitest';
import { loadMcpConfig, type McpProvidedServers } from '../../../src/core/config/loadMcpConfig';

const provider = (entries: Record<string, unknown>, supplementary?: boolean): McpProvidedServers => ({
  source: 'extension',
  label: supplementary ? 'VS Code MCP servers' : 'extension servers',
  jsonPath: 'servers',
  entries,
  ...(supplementary !== undefined ? { supplementary } : {}),
});

describe('servers that providers give', () => {
  it("reports a provider's bad entry once, under the provider's label", async () => {
    const result = await loadMcpConfig({ providedServers: [provider({ bad: 5, good: { command: 'a' } })] });
    expect(result.servers.map((s) => [s.name, s.problem])).toEqual([
      ['bad', 'extension servers: servers.bad: expected object, got number'],
      ['good', undefined],
    ]);
    expect(result.errors).toEqual([{ file: 'extension servers', jsonPath: 'servers.bad', message: 'expected object, got number', server: 'bad' }]);
  });

  it('adds an unusable server of a supplementary list under a new name, though other unusable servers exist', async () => {
    const result = await loadMcpConfig({
      providedServers: [provider({ broken: {} }), provider({ other: {}, broken: { command: 'x' } }, true)],
    });
    expect(result.servers.map((s) => [s.name, s.origin.file])).toEqual([
      ['broken', 'extension servers'],
      ['other', 'VS Code MCP servers'],
    ]);
  });
});
