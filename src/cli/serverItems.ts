import type { GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/client';
import { errorMessage } from '../core/base/errors';
import { ServerRequestError, type McpHarness } from '../core';
import { formatByteSize, base64DecodedLength } from '../core/tools/formatToolResult';
import { CALL_EXIT } from './commands';
import { UsageError, type CliOptions } from './CliOptions';
import { oneLine, renderTable } from './table';

/** `resources`: every server's resources and resource templates. */
export async function runResources(harness: McpHarness, options: CliOptions): Promise<number> {
  const rows = harness.snapshots().flatMap((s) => [
    ...s.resources.map((r) => ({ server: s.name, uri: r.uri, name: r.name, mimeType: r.mimeType, description: r.description })),
    ...s.resourceTemplates.map((t) => ({ server: s.name, uriTemplate: t.uriTemplate, name: t.name, mimeType: t.mimeType, description: t.description })),
  ]);
  if (options.json) return print(JSON.stringify({ resources: rows }, null, 2));
  if (rows.length === 0) return print('No server offers resources.');
  return print(renderTable(['SERVER', 'URI', 'NAME', 'DESCRIPTION'], rows.map((r) => [r.server, 'uri' in r ? r.uri : `${r.uriTemplate} (template)`, r.name, oneLine(r.description, 60)])));
}

/** `prompts`: every server's prompts with their arguments. */
export async function runPrompts(harness: McpHarness, options: CliOptions): Promise<number> {
  const rows = harness.snapshots().flatMap((s) => s.prompts.map((p) => ({ server: s.name, name: p.name, description: p.description, arguments: p.arguments ?? [] })));
  if (options.json) return print(JSON.stringify({ prompts: rows }, null, 2));
  if (rows.length === 0) return print('No server offers prompts.');
  const args = (r: (typeof rows)[number]) => r.arguments.map((a) => (a.required ? a.name : `[${a.name}]`)).join(' ');
  return print(renderTable(['PROMPT', 'ARGUMENTS', 'DESCRIPTION'], rows.map((r) => [`${r.server}.${r.name}`, args(r), oneLine(r.description, 70)])));
}

/** `read URI [--server NAME]`: a resource's contents; text on stdout, binary summarised. 3 when its server is down. */
export async function runRead(harness: McpHarness, options: CliOptions, uri: string, server: string | undefined): Promise<number> {
  const owner = server ?? ownerOf(harness, uri);
  let result: ReadResourceResult;
  try {
    result = await harness.readResource(owner, uri, options.timeoutMs ? { timeoutMs: options.timeoutMs } : {});
  } catch (err) {
    return failed(err);
  }
  if (options.json) return print(JSON.stringify(result, null, 2));
  for (const content of result.contents) {
    if ('text' in content && typeof content.text === 'string') process.stdout.write(content.text.endsWith('\n') ? content.text : `${content.text}\n`);
    else if ('blob' in content && typeof content.blob === 'string') process.stdout.write(`[${content.mimeType ?? 'binary'}, ${formatByteSize(base64DecodedLength(content.blob))}: ${content.uri}; use --json for its base64]\n`);
  }
  return CALL_EXIT.ok;
}

/** `prompt NAME [json-args]`: NAME is `server.prompt`; prints the prompt's messages. */
export async function runPrompt(harness: McpHarness, options: CliOptions, name: string, args: Record<string, unknown>): Promise<number> {
  const { server, prompt } = splitPromptName(harness, name);
  let result: GetPromptResult;
  try {
    result = await harness.getPrompt(server, prompt, args, options.timeoutMs ? { timeoutMs: options.timeoutMs } : {});
  } catch (err) {
    return failed(err);
  }
  if (options.json) return print(JSON.stringify(result, null, 2));
  for (const message of result.messages) {
    const content = message.content;
    const text = content.type === 'text' ? content.text : content.type === 'resource' ? `[resource ${content.resource.uri}]` : `[${content.type}]`;
    process.stdout.write(`${message.role}: ${text}\n`);
  }
  return CALL_EXIT.ok;
}

/** The server that lists `uri`; a URI no server lists (or several do) needs `--server`. */
function ownerOf(harness: McpHarness, uri: string): string {
  const owners = harness.snapshots().filter((s) => s.resources.some((r) => r.uri === uri)).map((s) => s.name);
  if (owners.length === 1) return owners[0]!;
  const servers = harness.servers().map((s) => s.name);
  if (owners.length > 1) throw new UsageError(`${owners.join(' and ')} both list ${uri}: say which with --server NAME`);
  if (servers.length === 1) return servers[0]!;
  throw new UsageError(`no server lists ${uri}: say which server to read it from with --server NAME (configured: ${servers.join(', ') || 'none'})`);
}

/** `server.prompt`, the server being the longest configured name the text starts with (names may contain dots). */
function splitPromptName(harness: McpHarness, name: string): { server: string; prompt: string } {
  const server = harness
    .servers()
    .map((s) => s.name)
    .filter((s) => name.startsWith(`${s}.`) && name.length > s.length + 1)
    .sort((a, b) => b.length - a.length)[0];
  if (server === undefined) throw new UsageError(`"${name}" does not name a prompt as SERVER.PROMPT (run "mcp-harness prompts" to see them)`);
  return { server, prompt: name.slice(server.length + 1) };
}

function failed(err: unknown): number {
  process.stderr.write(`${errorMessage(err)}\n`);
  if (!(err instanceof ServerRequestError)) return CALL_EXIT.failed;
  if (err.kind === 'unavailable') return CALL_EXIT.unavailable;
  return err.kind === 'unknown' || err.kind === 'invalid_arguments' ? CALL_EXIT.usage : CALL_EXIT.failed;
}

function print(text: string): number {
  process.stdout.write(`${text}\n`);
  return CALL_EXIT.ok;
}
