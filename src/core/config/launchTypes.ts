import type { Result } from '../base/result';
import type { McpInputDefinition, McpOAuthClientConfig, McpTransportKind } from './types';

/**
 * Supplies values for `${input:id}`. The editor implements it with prompts and secret storage;
 * the CLI may implement it with a terminal prompt or leave it out.
 */
export interface IMcpInputResolver {
  /** The value for `input`, or undefined when the user cancelled. */
  resolveInput(input: McpInputDefinition, server: string): Promise<string | undefined>;
}

/** What variables in a definition are resolved against when a server starts. */
export interface McpVariableContext {
  /** Usually `process.env`; `${VAR}` and `${env:VAR}` read it. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** What `${userHome}` means. */
  readonly userHome: string;
  readonly inputResolver?: IMcpInputResolver;
  /** Reads `envFile`; defaults to node:fs/promises (utf8). */
  readonly readFile?: (path: string) => Promise<string>;
}

/** A definition with every variable substituted: what a transport needs to connect. */
export interface McpResolvedLaunch {
  readonly type: McpTransportKind;
  readonly command?: string;
  readonly args: string[];
  /** Only the configured `env` and `envFile` values, NOT the process environment. */
  readonly env: Record<string, string>;
  readonly cwd?: string;
  readonly url?: string;
  readonly headers: Record<string, string>;
  /** The pre-registered OAuth client, its secret substituted. */
  readonly oauth?: McpOAuthClientConfig;
  /**
   * What must never be shown (see `McpSecretMask`): the values variables took from the environment
   * and inputs, `envFile` values, the URL's password and the OAuth client secret.
   */
  readonly secretValues?: readonly string[];
}

/** Result of {@link resolveServerLaunch}; `error` never contains resolved (possibly secret) values. */
export type McpLaunchResolution = Result<McpResolvedLaunch>;
