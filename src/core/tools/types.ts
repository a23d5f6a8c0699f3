import type { CallToolResult, Tool } from '@modelcontextprotocol/client';

/** Content block of a tool result, as MCP defines it. */
export type McpContentBlock = CallToolResult['content'][number];

type JsonObject = Readonly<Record<string, unknown>>;

/** MCP tool annotations: the server's own claims about a tool. */
export type ToolAnnotations = NonNullable<Tool['annotations']>;

/**
 * A callable tool as the harness knows it: the one shape the registry, the call pipeline, the
 * permission gate, the agent and the library all use. Its identity is (`server`, `originalName`,
 * `pin`); `name` is only a label, the exposed name a model or client calls it by.
 */
export interface HarnessTool {
  /** Exposed name: model-safe (`[A-Za-z0-9_-]{1,64}`), `mcp__<server>__<tool>` for an MCP tool. */
  readonly name: string;
  /** The server's display title, when it gave one. */
  readonly title?: string;
  readonly description: string;
  /** JSON Schema of the arguments (an object schema). */
  readonly inputSchema: JsonObject;
  readonly outputSchema?: JsonObject;
  /** MCP tool annotations (readOnlyHint, destructiveHint, ...), when the server gave them. */
  readonly annotations?: ToolAnnotations;
  /** The configured name of the MCP server (unsanitized), absent for built-in tools. */
  readonly server?: string;
  /** The tool's name on its server (a built-in's own name). */
  readonly originalName: string;
  /** sha256 of the tool's definition (see `pinTool`): an approval is bound to it. */
  readonly pin: string;
  /** The server's `_meta["anthropic/maxResultSizeChars"]`: the output cap it asks for this tool. */
  readonly maxResultSizeChars?: number;
}

/** What a decision is about: a server's tool as it was defined when the decision was made. */
export interface ToolIdentity {
  readonly server?: string;
  readonly originalName: string;
  readonly pin: string;
}

/** What every tool call resolves to, whatever the tool. */
export interface ToolCallResult {
  readonly isError: boolean;
  /** Model-ready text: text blocks joined, other content summarized, capped. */
  readonly text: string;
  /** The content blocks as the server sent them (binary data kept). */
  readonly content: readonly McpContentBlock[];
  readonly structuredContent?: Readonly<Record<string, unknown>>;
  /** The whole text when `text` was cut at the output cap (a chat keeps it for the model to page through). */
  readonly fullText?: string;
  /** With `fullText`: how many of its characters `text` starts with. */
  readonly shownChars?: number;
}

/** A tool implemented inside the harness. Its name may not start with `mcp__` (MCP tools' namespace). */
export interface BuiltinTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonObject;
  readonly annotations?: ToolAnnotations;
  invoke(args: Record<string, unknown>, options: { signal?: AbortSignal }): Promise<ToolCallResult>;
}

/** A tool as offered to a model. `name` is the registry's exposed name (`mcp__server__tool`). */
export interface ModelToolSpec {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments (an object schema). */
  readonly inputSchema: Readonly<Record<string, unknown>>;
}
