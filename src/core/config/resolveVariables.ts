import { ok, type Result } from '../base/result';
import type { McpVariableContext } from './launchTypes';
import { McpTemplatePart, McpVariableRef, parseVariableTemplate } from './parseVariableTemplate';
import { serverTemplateFields } from './serverTemplateFields';
import type { McpInputDefinition, McpServerDefinition } from './types';
import { errorMessage } from '../base/errors';

/**
 * Substitutes every variable in a string of the definition the resolution was made for, and
 * remembers the values it put in from the environment and from inputs (the secrets to mask).
 */
export type McpSubstitute = ((text: string) => string) & { readonly secretValues: ReadonlySet<string> };

/** Either a substitution ready to apply, or why the definition's variables cannot be resolved. */
export type McpVariableResolution = Result<McpSubstitute>;

/** Environment variables that name places and the user, never secrets: masking them would hide every path. */
const PUBLIC_ENV: ReadonlySet<string> = new Set([
  'HOME', 'USER', 'USERNAME', 'LOGNAME', 'PATH', 'PWD', 'SHELL', 'TERM', 'TMPDIR', 'TEMP', 'TMP', 'LANG', 'USERPROFILE', 'APPDATA', 'LOCALAPPDATA',
  'HOMEDRIVE', 'HOMEPATH', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME', 'XDG_STATE_HOME', 'XDG_RUNTIME_DIR', 'NODE_ENV',
]);

interface McpPendingInput {
  readonly input: McpInputDefinition;
  /** First field that uses it, for the error message. */
  readonly label: string;
}

/** A process environment value, ignoring anything that is not a string (e.g. prototype members). */
export function lookupEnv(env: Readonly<Record<string, string | undefined>>, name: string): string | undefined {
  const value = env[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Resolves the variables of `def`. Everything that can be checked without asking the user is
 * checked first (all problems reported together); then each `${input:id}` is asked for once, in
 * config order. Error messages name variables and fields, never resolved values.
 */
export async function resolveVariables(
  def: McpServerDefinition,
  ctx: McpVariableContext,
): Promise<McpVariableResolution> {
  const errors = new Set<string>();
  const pending = new Map<string, McpPendingInput>();
  for (const field of serverTemplateFields(def)) {
    for (const part of parseVariableTemplate(field.text)) {
      if (part.kind !== 'variable') {
        continue;
      }
      const problem = referenceProblem(part, def, ctx);
      if (problem !== undefined) {
        errors.add(`${problem} (used in ${field.label})`);
        continue;
      }
      // Stryker disable next-line ConditionalExpression: other kinds have no id, so no input is found for them
      if (part.ref.kind === 'input') {
        const input = findInput(def, part.ref.id);
        if (input && !pending.has(input.id)) {
          pending.set(input.id, { input, label: field.label });
        }
      }
    }
  }
  if (errors.size > 0) {
    return { ok: false, error: [...errors].join('; ') };
  }
  const inputValues = new Map<string, string>();
  for (const [id, { input, label }] of pending) {
    const value = await askInput(input, def, ctx);
    if (!value.ok) {
      return { ok: false, error: `${value.error} (used in ${label})` };
    }
    inputValues.set(id, value.value);
  }
  const secretValues = new Set<string>();
  const valueOf = (ref: McpVariableRef) => {
    const value = variableValue(ref, def, ctx, inputValues);
    if (isSecretSource(ref, ctx)) secretValues.add(value);
    return value;
  };
  return ok(Object.assign((text: string) => substitute(text, valueOf), { secretValues }));
}

/**
 * Whether a reference's value comes from outside the definition: the environment or an input. A
 * default written in the definition, the workspace folder and the home folder are not secrets.
 */
function isSecretSource(ref: McpVariableRef, ctx: McpVariableContext): boolean {
  if (ref.kind === 'input') return true;
  return ref.kind === 'env' && !PUBLIC_ENV.has(ref.name.toUpperCase()) && !!lookupEnv(ctx.env, ref.name);
}

function referenceProblem(
  part: Extract<McpTemplatePart, { kind: 'variable' }>,
  def: McpServerDefinition,
  ctx: McpVariableContext,
): string | undefined {
  const ref = part.ref;
  switch (ref.kind) {
    case 'env':
      return ref.default === undefined && lookupEnv(ctx.env, ref.name) === undefined
        ? `env var ${ref.name} is not set`
        : undefined;
    case 'workspaceFolder':
      return def.workspaceFolder === undefined ? '${workspaceFolder} used but no workspace folder is open' : undefined;
    // Stryker disable next-line StringLiteral: an unmatched kind also yields no problem
    case 'userHome':
      return undefined;
    case 'input':
      if (!findInput(def, ref.id)) {
        return `unknown input ${JSON.stringify(ref.id)} (declare it under "inputs")`;
      }
      return ctx.inputResolver ? undefined : `input ${JSON.stringify(ref.id)} needs an editor to prompt for it`;
    case 'unsupported':
      return `unsupported variable ${part.raw}`;
  }
}

async function askInput(
  input: McpInputDefinition,
  def: McpServerDefinition,
  ctx: McpVariableContext,
): Promise<Result<string>> {
  const name = JSON.stringify(input.id);
  try {
    // Stryker disable next-line OptionalChaining: an input is only asked for when there is a resolver
    const value = await ctx.inputResolver?.resolveInput(input, def.name);
    return value === undefined ? { ok: false, error: `input ${name} was not provided` } : { ok: true, value };
  } catch (e) {
    // The resolver's own failure (e.g. secret storage unavailable), not a value: safe to show.
    return { ok: false, error: `input ${name} could not be read: ${errorMessage(e)}` };
  }
}

function variableValue(
  ref: McpVariableRef,
  def: McpServerDefinition,
  ctx: McpVariableContext,
  inputValues: ReadonlyMap<string, string>,
): string {
  // Every reference was checked before this runs, so the fallbacks are never used.
  // Stryker disable StringLiteral,ConditionalExpression: those fallbacks
  switch (ref.kind) {
    case 'env': {
      const value = lookupEnv(ctx.env, ref.name);
      return ref.default !== undefined && !value ? ref.default : (value ?? '');
    }
    case 'workspaceFolder':
      return def.workspaceFolder ?? '';
    case 'userHome':
      return ctx.userHome;
    case 'input':
      return inputValues.get(ref.id) ?? '';
    case 'unsupported':
      return '';
  }
  // Stryker restore StringLiteral,ConditionalExpression
}

function substitute(text: string, valueOf: (ref: McpVariableRef) => string): string {
  return parseVariableTemplate(text)
    .map((part) => (part.kind === 'text' ? part.text : valueOf(part.ref)))
    .join('');
}

function findInput(def: McpServerDefinition, id: string): McpInputDefinition | undefined {
  return def.inputs.find((input) => input.id === id);
}
