import type { ReadResourceResult, Tool } from '@modelcontextprotocol/client';
// The extension's package is ESM only: the core (CommonJS) takes its types; the webview runs its bridge.
import type { McpUiResourceCsp, McpUiResourcePermissions } from '@modelcontextprotocol/ext-apps/app-bridge' with { 'resolution-mode': 'import' };
import { errorMessage } from '../base/errors';
import { fail, ok, type Result } from '../base/result';
import { sanitizeCsp } from './appCsp';

/** The MCP Apps extension, as clients declare it and servers look it up. */
export const UI_EXTENSION_ID = 'io.modelcontextprotocol/ui';
/** The one MIME type an app's HTML may have (the extension's `RESOURCE_MIME_TYPE`). */
export const UI_MIME_TYPE = 'text/html;profile=mcp-app';
/** What a client declares under {@link UI_EXTENSION_ID}: it renders MCP App HTML. */
export const UI_CLIENT_CAPABILITY = { mimeTypes: [UI_MIME_TYPE] };
/** Largest app the chat renders (the official examples are 0.2 to 0.5 MB, scripts inlined). */
export const MAX_UI_RESOURCE_BYTES = 4 * 1024 * 1024;

/** A tool's UI as its definition declares it: the `ui://` resource, or why it cannot be shown. */
export type ToolUi = { readonly resourceUri: string } | { readonly error: string };

/**
 * The UI a listed tool declares (`_meta.ui.resourceUri`, or the older flat `_meta["ui/resourceUri"]`;
 * the nested one wins), undefined when it declares none. A URI that is not `ui://` is an error the
 * card shows. The same reading as the extension's `getToolUiResourceUri`.
 */
export function toolUiOf(tool: Tool): ToolUi | undefined {
  const meta = isRecord(tool._meta) ? tool._meta : {};
  const nested = isRecord(meta.ui) ? meta.ui.resourceUri : undefined;
  const uri = nested ?? meta['ui/resourceUri'];
  if (uri === undefined) return undefined;
  if (typeof uri !== 'string' || !uri.startsWith('ui://')) {
    return { error: `The tool "${tool.name}" declares a UI that cannot be shown: ${JSON.stringify(uri).slice(0, 200)} is not a ui:// resource.` };
  }
  return { resourceUri: uri };
}

/** Who may call a tool (`_meta.ui.visibility`, default both the model and apps). */
function visibilityOf(tool: Tool): readonly unknown[] {
  const ui = isRecord(tool._meta) && isRecord(tool._meta.ui) ? tool._meta.ui : undefined;
  return Array.isArray(ui?.visibility) ? ui.visibility : ['model', 'app'];
}

/** Whether only apps may call this tool (`visibility: ["app"]`): the model is never offered it. */
export function isAppOnlyTool(tool: Tool): boolean {
  const v = visibilityOf(tool);
  return v.includes('app') && !v.includes('model');
}

/** Whether an app may call this tool: not one only the model may call (`visibility: ["model"]`). */
export function isAppCallable(tool: Tool): boolean {
  return visibilityOf(tool).includes('app');
}

/** An app's HTML and what it asks of its sandbox, checked and ready to render. */
export interface UiResource {
  readonly uri: string;
  readonly html: string;
  /** The network origins it declared, well-formed ones only. */
  readonly csp: McpUiResourceCsp;
  readonly permissions: McpUiResourcePermissions;
  readonly prefersBorder?: boolean;
  /** What of its declaration was left out, and why (shown on the card). */
  readonly notes: readonly string[];
}

/** What reading an app's resource needs of its server. */
export interface IUiResourceSource {
  /** Whether the server offers resources at all (its `resources` capability). */
  offersResources(): boolean;
  read(uri: string): Promise<ReadResourceResult>;
}

/**
 * Reads and checks the app of `server`'s tool: the server must offer resources, and answer
 * `resources/read` of exactly this `ui://` URI with HTML of the MCP App MIME type within
 * {@link MAX_UI_RESOURCE_BYTES}. Every failure is a sentence naming the server and the URI; nothing
 * half-read is returned.
 */
export async function readUiResource(server: string, uri: string, source: IUiResourceSource): Promise<Result<UiResource, string>> {
  const where = `the app ${uri} of server "${server}"`;
  if (!uri.startsWith('ui://')) return fail(`Cannot show ${where}: its URI is not a ui:// resource.`);
  if (!source.offersResources()) return fail(`Cannot show ${where}: the server does not offer resources (no "resources" capability), so its UI cannot be read.`);
  let result: ReadResourceResult;
  try {
    result = await source.read(uri);
  } catch (err) {
    return fail(`Cannot show ${where}: reading it failed: ${errorMessage(err)}`);
  }
  // Stryker disable next-line ArrayDeclaration: an entry that is not an object is skipped all the same
  const contents: readonly unknown[] = Array.isArray(result?.contents) ? result.contents : [];
  const entry = contents.find((c): c is Record<string, unknown> => isRecord(c) && c.uri === uri);
  if (!entry) return fail(`Cannot show ${where}: the server's answer holds no content for that URI.`);
  if (entry.mimeType !== UI_MIME_TYPE) {
    return fail(`Cannot show ${where}: its MIME type is ${typeof entry.mimeType === 'string' ? `"${entry.mimeType}"` : 'missing'}, not "${UI_MIME_TYPE}".`);
  }
  const html = htmlOf(entry);
  if (!html.ok) return fail(`Cannot show ${where}: ${html.error}`);
  // Stryker disable next-line StringLiteral: utf8 is also Buffer.byteLength's default
  const bytes = Buffer.byteLength(html.value, 'utf8');
  if (bytes > MAX_UI_RESOURCE_BYTES) return fail(`Cannot show ${where}: it is ${formatMb(bytes)}, over the ${formatMb(MAX_UI_RESOURCE_BYTES)} an app may be.`);
  if (html.value.trim() === '') return fail(`Cannot show ${where}: its HTML is empty.`);
  return ok(declaration(uri, html.value, entry._meta));
}

function htmlOf(entry: Record<string, unknown>): Result<string, string> {
  if (typeof entry.text === 'string') return ok(entry.text);
  if (typeof entry.blob === 'string') {
    // Checked before decoding: base64 is four characters for three bytes.
    // Stryker disable next-line EqualityOperator: the limit is not a whole number, so no length equals it
    if (entry.blob.length > (MAX_UI_RESOURCE_BYTES * 4) / 3 + 4) return fail(`it is over the ${formatMb(MAX_UI_RESOURCE_BYTES)} an app may be.`);
    return ok(Buffer.from(entry.blob, 'base64').toString('utf8'));
  }
  return fail('it has neither text nor a blob.');
}

/** The sandbox the resource asks for (`_meta.ui`): CSP origins and permissions, malformed parts left out with a note. */
function declaration(uri: string, html: string, meta: unknown): UiResource {
  const ui = isRecord(meta) ? meta.ui : undefined;
  if (ui === undefined) return { uri, html, csp: {}, permissions: {}, notes: [] };
  if (!isRecord(ui)) return { uri, html, csp: {}, permissions: {}, notes: ['Its _meta.ui is not an object: it gets no network access and no permissions.'] };
  const { csp, ignored } = sanitizeCsp(isRecord(ui.csp) ? (ui.csp as McpUiResourceCsp) : undefined);
  const notes = ignored.length ? [`Left out of its content security policy (not an origin): ${ignored.join(', ')}.`] : [];
  const declared = isRecord(ui.permissions) ? ui.permissions : {};
  const permissions: Record<string, object> = {};
  for (const key of PERMISSIONS) if (isRecord(declared[key])) permissions[key] = {};
  return { uri, html, csp, permissions, ...(typeof ui.prefersBorder === 'boolean' ? { prefersBorder: ui.prefersBorder } : {}), notes };
}

/** The permissions an app may ask its frame for (the `allow` list's features). */
const PERMISSIONS = ['camera', 'microphone', 'geolocation', 'clipboardWrite'] as const;

function formatMb(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
