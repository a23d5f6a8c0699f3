import type { McpUiResourceCsp } from '@modelcontextprotocol/ext-apps/app-bridge' with { 'resolution-mode': 'import' };

type CspKey = keyof McpUiResourceCsp;
const CSP_KEYS: readonly CspKey[] = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'];

/**
 * An origin as a CSP source expression may name it, and nothing more: a scheme among http(s) and
 * ws(s), a host (a leading `*.` allowed), an optional port (or `*`). No path, no keyword, no
 * whitespace or separator a server could use to smuggle in a directive of its own.
 */
const ORIGIN = /^(https?|wss?):\/\/(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:(\d{1,5}|\*))?\/?$/i;

/** The declared origins that are origins; each one that is not is named in `ignored`. */
export function sanitizeCsp(csp: McpUiResourceCsp | undefined): { csp: McpUiResourceCsp; ignored: string[] } {
  const out: McpUiResourceCsp = {};
  const ignored: string[] = [];
  for (const key of CSP_KEYS) {
    const list = csp?.[key];
    if (!Array.isArray(list)) continue;
    const kept = [...new Set(list.filter((d) => typeof d === 'string' && ORIGIN.test(d)).map((d) => d.replace(/\/$/, '')))];
    for (const d of list) if (typeof d !== 'string' || !ORIGIN.test(d)) ignored.push(JSON.stringify(d).slice(0, 80));
    if (kept.length) out[key] = kept;
  }
  return { csp: out, ignored };
}

/**
 * The content security policy an app runs under: inline script and style (apps ship as one HTML
 * file), data and blob images and media, and from the network only the origins it declared
 * (already sanitized): `resourceDomains` for scripts, styles, images, fonts and media,
 * `connectDomains` for fetch and sockets, `frameDomains` for frames. Nothing else: no `'self'`
 * (the sandbox page's server is not the app's), no objects, no forms, no workers from elsewhere.
 */
export function appCspHeader(csp: McpUiResourceCsp): string {
  const list = (key: CspKey) => (csp[key] ?? []).join(' ');
  const or = (key: CspKey, fallback: string) => list(key) || fallback;
  const resources = list('resourceDomains');
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline' ${resources}`.trim(),
    `style-src 'unsafe-inline' ${resources}`.trim(),
    `img-src data: blob: ${resources}`.trim(),
    `font-src data: ${resources}`.trim(),
    `media-src data: blob: ${resources}`.trim(),
    `connect-src ${or('connectDomains', "'none'")}`,
    `frame-src ${or('frameDomains', "'none'")}`,
    `base-uri ${or('baseUriDomains', "'none'")}`,
    "worker-src blob:",
    "object-src 'none'",
    "form-action 'none'",
  ].join('; ');
}
