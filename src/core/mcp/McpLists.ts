import {
  specTypeSchemas,
  type Client,
  type JsonSchemaValidator,
  type Prompt,
  type Resource,
  type ResourceTemplateType as ResourceTemplate,
  type ServerCapabilities,
  type StandardSchemaV1Sync,
  type Tool,
} from '@modelcontextprotocol/client';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import * as z from 'zod/v4';
import { errorMessage } from '../base/errors';
import { isMethodNotFound } from './mcpErrors';

export type McpListKind = 'tools' | 'resources' | 'prompts';

const MAX_PAGES = 1000;
const LIST_TIMEOUT_MS = 30_000;

/**
 * A server's tools, resources, resource templates and prompts, fetched page by page. Lists are
 * replaced only when their content changed, so an unchanged re-list keeps the same arrays.
 */
export class McpLists {
  tools: readonly Tool[] = [];
  resources: readonly Resource[] = [];
  resourceTemplates: readonly ResourceTemplate[] = [];
  prompts: readonly Prompt[] = [];

  private readonly _outputValidators = new Map<string, JsonSchemaValidator<unknown> | null>();
  private static _ajv: AjvJsonSchemaValidator | undefined;

  constructor(
    private readonly _client: () => Client,
    private readonly _warn: (message: string) => void,
  ) {}

  /** First listing after initialize: tools always (tolerating "method not found"), the rest when declared. */
  async refreshAll(capabilities: ServerCapabilities, signal?: AbortSignal): Promise<void> {
    await Promise.all([
      this._refreshTools(signal),
      capabilities.resources ? this._refreshResources(signal) : undefined,
      capabilities.prompts ? this._refreshPrompts(signal) : undefined,
    ]);
  }

  /** Re-lists one kind after a list_changed notification. Resolves whether anything changed. */
  async refresh(kind: McpListKind, capabilities: ServerCapabilities): Promise<boolean> {
    const before = [this.tools, this.resources, this.resourceTemplates, this.prompts];
    try {
      if (kind === 'tools') await this._refreshTools();
      else if (kind === 'resources' && capabilities.resources) await this._refreshResources();
      else if (kind === 'prompts' && capabilities.prompts) await this._refreshPrompts();
    } catch (err) {
      this._warn(`re-listing ${kind} failed, keeping the previous list: ${errorMessage(err)}`);
      return false;
    }
    const after = [this.tools, this.resources, this.resourceTemplates, this.prompts];
    return after.some((list, i) => list !== before[i]);
  }

  /** Validator for a tool's structured output, or undefined when it declares no output schema. */
  outputValidator(toolName: string): JsonSchemaValidator<unknown> | undefined {
    let validator = this._outputValidators.get(toolName);
    if (validator === undefined) {
      const schema = this.tools.find((t) => t.name === toolName)?.outputSchema;
      validator = null;
      if (schema) {
        try {
          McpLists._ajv ??= new AjvJsonSchemaValidator();
          validator = McpLists._ajv.getValidator(schema as never);
        } catch (err) {
          this._warn(`output schema of "${toolName}" cannot be compiled; its output is not checked: ${String(err)}`);
        }
      }
      this._outputValidators.set(toolName, validator);
    }
    return validator ?? undefined;
  }

  private async _refreshTools(signal?: AbortSignal): Promise<void> {
    const tools = (await this._listToolsThroughSdk(signal)) ?? (await this._listAll('tools/list', 'tools', specTypeSchemas.Tool, signal));
    if (tools !== undefined && changed(this.tools, tools)) {
      this.tools = tools;
      this._outputValidators.clear();
    }
  }

  /**
   * On 2026-07-28 the SDK's own listing is used: it drops tools whose `x-mcp-header` annotations
   * are invalid and remembers the rest, so calls carry their `Mcp-Param-*` headers. Undefined
   * (use the tolerant page-by-page listing) on older revisions or when it refuses the answer.
   */
  private async _listToolsThroughSdk(signal?: AbortSignal): Promise<Tool[] | undefined> {
    const client = this._client();
    if (client.getProtocolEra() !== 'modern') return undefined;
    try {
      return (await client.listTools(undefined, { signal, timeout: LIST_TIMEOUT_MS, cacheMode: 'refresh' })).tools;
    } catch (err) {
      if (isMethodNotFound(err)) return [];
      this._warn(`tools/list: the SDK refused the answer, listing page by page instead: ${errorMessage(err)}`);
      return undefined;
    }
  }

  private async _refreshResources(signal?: AbortSignal): Promise<void> {
    const [resources, templates] = await Promise.all([
      this._listAll('resources/list', 'resources', specTypeSchemas.Resource, signal),
      this._listAll('resources/templates/list', 'resourceTemplates', specTypeSchemas.ResourceTemplate, signal),
    ]);
    if (resources !== undefined && changed(this.resources, resources)) this.resources = resources;
    if (templates !== undefined && changed(this.resourceTemplates, templates)) this.resourceTemplates = templates;
  }

  private async _refreshPrompts(signal?: AbortSignal): Promise<void> {
    const prompts = await this._listAll('prompts/list', 'prompts', specTypeSchemas.Prompt, signal);
    if (prompts !== undefined && changed(this.prompts, prompts)) this.prompts = prompts;
  }

  /**
   * Follows `nextCursor` to the end. Undefined when the server does not implement the method.
   * Each item is checked on its own: one malformed tool is skipped with a warning instead of
   * failing the whole listing (and with it the server).
   */
  private async _listAll<T>(method: string, key: string, itemSchema: StandardSchemaV1Sync<unknown, T>, signal?: AbortSignal): Promise<T[] | undefined> {
    const pageSchema = z.looseObject({ [key]: z.array(z.unknown()), nextCursor: z.string().optional() });
    const all: T[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      let result: z.infer<typeof pageSchema>;
      try {
        result = await this._client().request({ method, params: { cursor } } as never, pageSchema, { signal, timeout: LIST_TIMEOUT_MS });
      } catch (err) {
        if (isMethodNotFound(err)) return undefined;
        throw err;
      }
      for (const raw of result[key] as unknown[]) {
        const item = itemSchema['~standard'].validate(raw);
        if (item.issues === undefined) all.push(item.value);
        else this._warn(`${method}: skipped an entry that breaks the MCP schema (${describeItem(raw)}): ${item.issues[0].message}`);
      }
      cursor = result.nextCursor as string | undefined; // the page schema checked it
      if (cursor === undefined) return all;
      if (seen.has(cursor)) {
        this._warn(`${method} repeated cursor ${JSON.stringify(cursor)}; stopping after ${page + 1} pages`);
        return all;
      }
      seen.add(cursor);
    }
    this._warn(`${method} still had more after ${MAX_PAGES} pages; the rest is ignored`);
    return all;
  }
}

function describeItem(raw: unknown): string {
  const name = typeof raw === 'object' && raw !== null ? (raw as { name?: unknown; uri?: unknown }).name ?? (raw as { uri?: unknown }).uri : undefined;
  return typeof name === 'string' ? `"${name}"` : JSON.stringify(raw)?.slice(0, 80) ?? String(raw);
}

function changed(before: readonly unknown[], after: readonly unknown[]): boolean {
  return JSON.stringify(before) !== JSON.stringify(after);
}
