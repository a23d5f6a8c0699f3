import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach } from 'vitest';
import { McpHttpAuth, type McpHttpAuthOptions } from '../../../src/core/auth/McpHttpAuth';
import { MCP_URL, MemoryAuthHost, MemoryOAuthServer } from '../../support/memoryOAuth';

const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
});

/** McpHttpAuth with a real SDK client and Streamable HTTP transport made for each connect attempt. */
export async function create(server: MemoryOAuthServer, host: MemoryAuthHost | undefined, options: Partial<McpHttpAuthOptions> = {}) {
  const logs: string[] = [];
  const auth = await McpHttpAuth.create({ server: 'prot', serverUrl: MCP_URL, host, interactive: true, hasAuthorizationHeader: false, log: (m) => logs.push(m), ...options });
  let last: StreamableHTTPClientTransport | undefined;
  let client: Client | undefined;
  const connect = async () => {
    last = new StreamableHTTPClientTransport(new URL(MCP_URL), { authProvider: auth.provider, fetch: auth.fetch(server.fetch, undefined), maxStepUpRetries: 2 });
    client = new Client({ name: 'test', version: '1' });
    await client.connect(last);
    clients.push(client);
  };
  const finish = (callback: URLSearchParams) => last!.finishAuth(callback);
  const run = (signal = new AbortController().signal) => auth.run(connect, finish, signal);
  const callStepUp = (signal?: AbortSignal) => auth.withStepUp(() => client!.callTool({ name: 'step_up', arguments: {} }), finish, signal);
  return { auth, logs, run, finish, callStepUp, connect };
}

/** A host whose browser waits until `release` (or the caller's cancellation) before answering. */
export class HeldBrowserHost extends MemoryAuthHost {
  release!: () => void;
  disposed = 0;
  private _gate = this._newGate();
  constructor(private readonly _srv: MemoryOAuthServer) {
    super(_srv);
  }
  private _newGate(): Promise<void> {
    return new Promise((resolve) => (this.release = resolve));
  }
  hold(): void {
    this._gate = this._newGate();
  }
  override async createRedirectReceiver() {
    const receiver = await super.createRedirectReceiver();
    return {
      ...receiver,
      dispose: () => void this.disposed++,
      authorize: async (url: URL, signal: AbortSignal) => {
        this.opened.push(url.pathname);
        await new Promise<void>((resolve, reject) => {
          signal.addEventListener('abort', () => reject(signal.reason), { once: true });
          void this._gate.then(resolve);
        });
        return this._srv.approve(url);
      },
    };
  }
}

/** Signed in once through a browser the test holds, which is held again for the next sign-in. */
export async function signedInWithHeldBrowser() {
  const server = new MemoryOAuthServer();
  const host = new HeldBrowserHost(server);
  const rig = await create(server, host);
  host.release();
  await rig.run();
  host.hold();
  return { server, host, ...rig };
}
