import { matchWildcard } from '../base/matchWildcard';

/**
 * Which tools, resources and prompts `serve` offers. Defaults: the read-only built-in tools, and
 * with the gateway every configured server's tools, resources and prompts. `expose` adds names,
 * `deny` removes them and always wins. Patterns match whole names; `*` is any run of characters,
 * `?` one character.
 */
export class ServeExposure {
  private readonly _expose: readonly { test(name: string): boolean }[];
  private readonly _deny: readonly { test(name: string): boolean }[];

  constructor(
    readonly options: { readonly expose: readonly string[]; readonly deny: readonly string[]; readonly gateway: boolean },
  ) {
    this._expose = options.expose.map(compilePattern);
    this._deny = options.deny.map(compilePattern);
  }

  /** Whether a built-in tool is offered. */
  allowsBuiltin(name: string, readOnly: boolean): boolean {
    if (this.isDenied(name)) return false;
    return readOnly || this._expose.some((p) => p.test(name));
  }

  /** Whether a configured server's tool, resource or prompt (by its namespaced name) is offered. */
  allowsGateway(name: string): boolean {
    return this.options.gateway && !this.isDenied(name);
  }

  isDenied(name: string): boolean {
    return this._deny.some((p) => p.test(name));
  }
}

/**
 * A name pattern as a whole-string matcher. Not a RegExp: a workspace file's `deny` pattern such as
 * `*a*a*a*a*b` would take exponential time there (see {@link matchWildcard}).
 */
export function compilePattern(pattern: string): { test(name: string): boolean } {
  return { test: (name) => matchWildcard(pattern, name, { questionMark: true }) };
}
