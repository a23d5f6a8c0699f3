import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import { CallPipeline, type CallPipelineOptions } from '../../src/core/calls/CallPipeline';
import type { ToolCallOptions, ToolCallRequest } from '../../src/core/calls/types';
import type { McpCallOptions } from '../../src/core/mcp/McpSession';
import { ToolRegistry } from '../../src/core/tools/ToolRegistry';
import type { HarnessTool } from '../../src/core/tools/types';

/** What a test's server answers: by exposed name, the arguments and the call's options. */
export type TestToolHandler = (exposedName: string, args: Record<string, unknown>, options: McpCallOptions) => Promise<{ isError: boolean; text: string } | CallToolResult>;

/**
 * A real registry and a real pipeline in one process, with servers answered by a function: for
 * unit tests of what sits above the pipeline (the agent, the chat). Every call that reaches a
 * "server" is recorded, so a test can assert exactly what went out.
 */
export class PipelineFixture {
  readonly registry = new ToolRegistry();
  readonly calls: Array<{ server: string; tool: string; name: string; args: Record<string, unknown> }> = [];
  readonly pipeline: CallPipeline;
  /** Servers to report as not running. */
  readonly down = new Set<string>();

  constructor(
    public handler: TestToolHandler = async (name, args) => ({ isError: false, text: `${name} said ${JSON.stringify(args)}` }),
    now?: () => number,
    /** Hooks and harness defaults for the pipeline (none, and no defaults, when left out). */
    extra: Partial<Pick<CallPipelineOptions, 'hooks' | 'defaults'>> = {},
  ) {
    this.pipeline = new CallPipeline({
      registry: this.registry,
      connection: (server) => ({
        definition: {},
        state: { kind: this.down.has(server) ? 'stopped' : 'running' },
        whenSettled: async () => undefined,
        describeUnavailable: () => `server "${server}" is not running (stopped)`,
        callTool: async (tool, args, options) => {
          const name = this.registry.find(server, tool)?.tool.name ?? tool;
          this.calls.push({ server, tool, name, args });
          const result = await this.handler(name, args, options);
          return 'content' in result ? result : { isError: result.isError, content: [{ type: 'text', text: result.text }] };
        },
      }),
      servers: () => [...new Set([...this.registry.getTools().flatMap((t) => (t.server !== undefined ? [t.server] : [])), ...this.down])],
      defaults: () => ({}),
      ...(now ? { now } : {}),
      ...extra,
    });
  }

  /** Lists `tools` for `server` (as the server would). */
  setTools(server: string, tools: ReadonlyArray<{ name: string } & Record<string, unknown>>): this {
    this.registry.setServerTools(server, tools.map((t) => ({ inputSchema: { type: 'object' }, ...t }) as Tool));
    return this;
  }

  tools(): readonly HarnessTool[] {
    return this.registry.getTools();
  }

  tool(name: string): HarnessTool {
    const tool = this.registry.getTool(name);
    if (!tool) throw new Error(`no tool ${name}`);
    return tool;
  }

  readonly call = (request: ToolCallRequest, options: ToolCallOptions) => this.pipeline.callTool(request, options);
}
