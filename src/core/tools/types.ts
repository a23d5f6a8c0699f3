import type { CallToolResult, Tool } from '@modelcontextprotocol/client';

/** Content block of a tool result, as MCP defines it. */
export type McpContentBlock = CallToolResult['content'][number];

/** A tool as the registry exposes it to a model or a user. */
export interface ExposedTool {
  /** Unique, model-safe name: `[A-Za-z0-9_-]{1,64}`. */
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments (an object schema). */
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  /** MCP tool annotations (readOnlyHint, destructiveHint, ...), when the server gave them. */
  readonly annotations?: Tool['annotations'];
  readonly title?: string;
  readonly source: ToolSource;
}

export type ToolSource =
  | { readonly kind: 'builtin' }
  | { readonly kind: 'mcp'; readonly server: string; readonly tool: string };

/** What every tool call resolves to, whatever the tool. */
export interface ToolCallResult {
  readonly isError: boolean;
  /** Model-ready text: text blocks joined, other content summarized, capped. */
  readonly text: string;
  /** The content blocks as the server sent them (binary data kept). */
  readonly content: readonly McpContentBlock[];
  readonly structuredContent?: Readonly<Record<string, unknown>>;
}

/** A tool implemented inside the harness. Built-in names win any clash with MCP tools. */
export interface BuiltinTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly annotations?: Tool['annotations'];
  invoke(args: Record<string, unknown>, options: { signal?: AbortSignal }): Promise<ToolCallResult>;
}
