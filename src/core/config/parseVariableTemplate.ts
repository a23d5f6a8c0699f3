/** What one `${...}` refers to. */
export type McpVariableRef =
  /** `${VAR}`, `${VAR:-default}`, `${env:VAR}` or `${env:VAR:-default}`. */
  | { readonly kind: 'env'; readonly name: string; readonly default?: string }
  | { readonly kind: 'workspaceFolder' }
  | { readonly kind: 'userHome' }
  | { readonly kind: 'input'; readonly id: string }
  /** Well-formed braces around something this module does not know (e.g. `${config:x}`). */
  | { readonly kind: 'unsupported' };

/** A piece of a template: literal text or one variable. */
export type McpTemplatePart =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'variable'; readonly raw: string; readonly ref: McpVariableRef };

/** `${...}` with no braces inside, so an unclosed `${` before a later variable stays literal. */
const VARIABLE = /\$\{([^{}]*)\}/g;
const BARE_ENV = /^([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s;
// Windows names such as `ProgramFiles(x86)` are only reachable through the explicit `env:` form.
const PREFIXED_ENV = /^env:([^:]+?)(?::-(.*))?$/s;
const INPUT = /^input:(.+)$/s;

/**
 * Splits a string into literal text and variables. A lone `$`, or `${` without a closing `}`,
 * is literal text.
 */
export function parseVariableTemplate(text: string): McpTemplatePart[] {
  const parts: McpTemplatePart[] = [];
  let last = 0;
  for (const match of text.matchAll(VARIABLE)) {
    const start = match.index;
    if (start > last) {
      parts.push({ kind: 'text', text: text.slice(last, start) });
    }
    parts.push({ kind: 'variable', raw: match[0], ref: parseReference(match[1]) });
    last = start + match[0].length;
  }
  if (last < text.length) {
    parts.push({ kind: 'text', text: text.slice(last) });
  }
  return parts;
}

function parseReference(body: string): McpVariableRef {
  if (body === 'workspaceFolder') {
    return { kind: 'workspaceFolder' };
  }
  if (body === 'userHome') {
    return { kind: 'userHome' };
  }
  const input = INPUT.exec(body);
  if (input) {
    return { kind: 'input', id: input[1] };
  }
  const env = PREFIXED_ENV.exec(body) ?? BARE_ENV.exec(body);
  if (env) {
    return env[2] === undefined ? { kind: 'env', name: env[1] } : { kind: 'env', name: env[1], default: env[2] };
  }
  return { kind: 'unsupported' };
}
