import { matchToolPattern, patternSubject, type HarnessTool, type McpServeSource } from '../core';

/** An `expose` or `deny` entry and where it came from, as `serve` reports it at start. */
export interface ServeRule {
  readonly pattern: string;
  /** `--expose`, `--deny`, `user config FILE`, `--config FILE`, `workspace FILE`. */
  readonly from: string;
}

/** How a source is named in `serve`'s start lines. */
export function describeServeSource(source: McpServeSource): string {
  return source.kind === 'user' ? `user config ${source.file}` : source.kind === 'explicit' ? `--config ${source.file}` : `workspace ${source.file}`;
}

/**
 * What `serve` offers and from where: each offered tool grouped by the reason it is offered (the
 * default read-only set, the gateway, or the first expose rule naming it), then each deny rule.
 */
export function describeExposure(offered: readonly string[], tools: readonly HarnessTool[], expose: readonly ServeRule[], deny: readonly ServeRule[]): string[] {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const groups = new Map<string, string[]>();
  for (const name of offered) {
    const tool = byName.get(name);
    const rule = tool && expose.find((r) => matchToolPattern(r.pattern, patternSubject(tool)));
    const reason =
      tool?.server !== undefined ? '--gateway' : tool?.annotations?.readOnlyHint === true ? 'default: the read-only built-ins' : rule ? `${rule.from}: ${rule.pattern}` : 'default';
    groups.set(reason, [...(groups.get(reason) ?? []), name]);
  }
  const lines = [`exposed: ${[...groups].map(([reason, names]) => `${names.join(', ')} (${reason})`).join('; ') || '(nothing)'}`];
  if (deny.length > 0) lines.push(`denied: ${deny.map((d) => `${d.pattern} (${d.from})`).join('; ')}`);
  return lines;
}
