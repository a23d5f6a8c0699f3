// The client the MCP conformance suite drives: `node dist/conformance-client.js <server-url>`, with the
// scenario name in MCP_CONFORMANCE_SCENARIO. It connects through the harness exactly as a user's
// configuration would, calls every tool the server offers, and exits. Exit 1 means the client broke.
import { McpHarness, type HarnessTool } from '../../src/core';
import { CliAuthHost, MemorySecretStore } from '../../src/cli/CliAuthHost';

const CALL_TIMEOUT_MS = 15_000;
/** The suite's client ID metadata document URL (its auth/basic-cimd scenario expects it as client_id). */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';
/** The scenario whose echo tool wants another tool's input schema back, verbatim. */
const SCHEMA_ECHO_SCENARIO = 'json-schema-2020-12-preservation';
/** The scenario that checks Mcp-Param-* headers, including Base64 for values unsafe in a header. */
const HEADER_SCENARIO = 'http-custom-headers';
/** The skills scenario that checks a host lists skills without reading any of their files. */
const SKILLS_LIST_ONLY_SCENARIO = 'sep-2640-client-no-prefetch';
/** The prefix of the scenarios that give the client a machine identity (SEP-1046). */
const CLIENT_CREDENTIALS_SCENARIO = 'auth/client-credentials-';
/** The workload identity federation scenario: a workload's JWT as the grant (SEP-1933). */
const WIF_SCENARIO = 'auth/wif-jwt-bearer';
/** Enterprise-managed authorization: an IdP's ID token exchanged for an ID-JAG, then an access token (SEP-990). */
const ENTERPRISE_SCENARIO = 'auth/enterprise-managed-authorization';

/** The scenario's context: pre-registered client credentials for auth/pre-registration. */
function scenarioContext(): Record<string, unknown> {
  try {
    return JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as Record<string, unknown>;
  } catch {
    return {};
  }
}

/**
 * The client credentials scenarios configure a machine identity, as a user would: the secret or
 * key in the environment, the entry naming it with `${env:...}`.
 */
function machineIdentity(scenario: string, context: Record<string, unknown>): Record<string, unknown> | undefined {
  if (scenario === ENTERPRISE_SCENARIO && typeof context.client_id === 'string' && typeof context.client_secret === 'string' && typeof context.idp_id_token === 'string') {
    process.env.CONFORMANCE_CLIENT_SECRET = context.client_secret;
    process.env.CONFORMANCE_ID_TOKEN = context.idp_id_token;
    const idp = { issuer: context.idp_issuer, tokenEndpoint: context.idp_token_endpoint, clientId: context.idp_client_id, idToken: '${env:CONFORMANCE_ID_TOKEN}' };
    return { grant: 'enterprise_managed', clientId: context.client_id, clientSecret: '${env:CONFORMANCE_CLIENT_SECRET}', idp };
  }
  if (scenario === WIF_SCENARIO && typeof context.client_id === 'string' && typeof context.valid_jwt === 'string') {
    process.env.CONFORMANCE_WORKLOAD_JWT = context.valid_jwt;
    return { grant: 'jwt_bearer', clientId: context.client_id, assertion: '${env:CONFORMANCE_WORKLOAD_JWT}' };
  }
  if (!scenario.startsWith(CLIENT_CREDENTIALS_SCENARIO) || typeof context.client_id !== 'string') return undefined;
  const base = { grant: 'client_credentials', clientId: context.client_id };
  if (typeof context.private_key_pem === 'string') {
    process.env.CONFORMANCE_PRIVATE_KEY = context.private_key_pem;
    const alg = typeof context.signing_algorithm === 'string' ? { signingAlgorithm: context.signing_algorithm } : {};
    return { ...base, privateKey: '${env:CONFORMANCE_PRIVATE_KEY}', ...alg };
  }
  if (typeof context.client_secret !== 'string') return undefined;
  process.env.CONFORMANCE_CLIENT_SECRET = context.client_secret;
  return { ...base, clientSecret: '${env:CONFORMANCE_CLIENT_SECRET}' };
}

/** Plays the user's browser: follows the authorization server's redirects to our loopback redirect. */
async function follow(url: URL): Promise<void> {
  let next: string | undefined = url.href;
  for (let hops = 0; next && hops < 5; hops++) {
    const response = await fetch(next, { redirect: 'manual' });
    await response.arrayBuffer();
    const location = response.headers.get('location');
    next = response.status >= 300 && response.status < 400 && location ? new URL(location, next).href : undefined;
  }
}

const log = (message: string) => process.stderr.write(`[conformance-client] ${message}\n`);

async function main(url: string | undefined): Promise<number> {
  if (!url) {
    log('usage: conformance-client <server-url>');
    return 2;
  }
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
  log(`scenario ${scenario || '(none)'}, server ${url}`);
  const context = scenarioContext();
  const preregistered = machineIdentity(scenario, context) ?? (
    typeof context.client_id === 'string' && typeof context.client_secret === 'string' && Object.keys(context).length <= 4
      ? { clientId: context.client_id, clientSecret: context.client_secret }
      : undefined);
  const authHost = new CliAuthHost({
    secrets: new MemorySecretStore(),
    allowSignIn: true,
    clientMetadataUrl: CLIENT_METADATA_URL,
    open: follow,
    say: log,
  });
  const harness = new McpHarness({
    userServers: { label: 'conformance', jsonPath: 'servers', entries: { test: { type: 'http', url, ...(preregistered ? { oauth: preregistered } : {}) } } },
    authHost,
    // Accepting with no content lets the SDK fill in the schema's defaults (SEP-1034).
    handlers: { elicit: async () => ({ action: 'accept', content: {} }) },
    // A dropped connection is the scenario's business; retrying would only blur what it measures.
    reconnectDelaysMs: [],
    // Fail on our own, with a reason, before the suite's 30 s client timeout (scenarios run in parallel).
    startupTimeoutMs: 25_000,
  });
  // Listening before start() so the handshake is in the log too.
  harness.onDidLog((e) => log(`${e.level} ${e.source}: ${e.message}`));
  try {
    await harness.start();
    if (harness.servers().find((s) => s.name === 'test')?.state === 'auth_required') await harness.signIn('test');
    const server = harness.servers().find((s) => s.name === 'test');
    if (server?.state !== 'running') {
      log(`server did not start: ${server?.error ?? server?.state ?? 'not configured'}`);
      return 1;
    }
    const tools = harness.tools().filter((t) => t.server === 'test');
    for (const tool of tools) {
      const other = tools.find((t) => t !== tool);
      const args = scenario === SCHEMA_ECHO_SCENARIO && wantsSchema(tool) && other ? { schema: other.inputSchema } : argumentsFor(tool.inputSchema);
      log(`calling ${tool.originalName} ${JSON.stringify(args)}`);
      const result = await harness.callTool(tool.name, args, { timeoutMs: CALL_TIMEOUT_MS });
      log(`${tool.originalName} ${result.isError ? `failed (${result.errorKind})` : 'returned'}: ${result.text}`);
    }
    // Skills: list them; load each (as a user attaching it would), unless the scenario checks listing alone.
    const { skills, problems } = await harness.skills();
    for (const problem of problems) log(`skills: ${problem.server}: ${problem.message}`);
    for (const skill of scenario === SKILLS_LIST_ONLY_SCENARIO ? [] : skills) {
      try {
        const loaded = await harness.getSkill(skill.server, skill.name);
        log(`skill ${skill.name} loaded (${loaded.files.length} files verified)`);
      } catch (err) {
        log(`skill ${skill.name} refused: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    return 0;
  } finally {
    await harness.dispose();
  }
}

/** A tool whose one required argument is an object named `schema`: it wants a schema echoed. */
function wantsSchema(tool: HarnessTool): boolean {
  const required = tool.inputSchema.required;
  return Array.isArray(required) && required.length === 1 && required[0] === 'schema';
}

/** Arguments that satisfy a tool's input schema: required properties only, simplest values. */
function argumentsFor(schema: HarnessTool['inputSchema']): Record<string, unknown> {
  const value = sampleValue(schema);
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function sampleValue(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null) return null;
  const s = schema as Record<string, unknown>;
  if (s.default !== undefined) return s.default;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'integer':
    case 'number':
      return 1;
    case 'string':
      // A header-mirrored value outside plain ASCII, so the client's Base64 encoding is exercised.
      return s['x-mcp-header'] !== undefined && process.env.MCP_CONFORMANCE_SCENARIO === HEADER_SCENARIO ? 'Zürich' : 'test';
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'null':
      return null;
    default: {
      const properties = (s.properties ?? {}) as Record<string, unknown>;
      const required = Array.isArray(s.required) ? (s.required as string[]) : [];
      return Object.fromEntries(required.map((name) => [name, sampleValue(properties[name])]));
    }
  }
}

main(process.argv[2]).then(
  (code) => process.exit(code),
  (err: unknown) => {
    log(`unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
