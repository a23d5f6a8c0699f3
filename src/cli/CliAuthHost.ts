import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import lockfile from 'proper-lockfile';
import { assertBrowserUrl, type IMcpAuthHost, type IMcpRedirectReceiver, type IMcpSecretStore } from '../core';
import { userConfigDirectory } from './userPaths';

/** Set to `off` to keep OAuth tokens in memory only (each run signs in again); any other value is the file to use. */
export const TOKEN_STORE_ENV = 'MCP_HARNESS_TOKEN_STORE';

/** `~/.config/mcp-harness/oauth.json` (XDG, or %APPDATA% on Windows), or undefined when storing is off. */
export function defaultTokenFile(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string | undefined {
  const setting = env[TOKEN_STORE_ENV];
  if (setting === 'off') return undefined;
  if (setting) return path.resolve(setting);
  return path.join(userConfigDirectory(env, platform), 'oauth.json');
}

/** How long a lock is kept for a process that died holding it, and how long another waits for it. */
const LOCK_STALE_MS = 30_000;
const LOCK_RETRIES = { retries: 120, factor: 1.2, minTimeout: 25, maxTimeout: 500 };

/**
 * Secrets in one JSON file readable by its owner only (0600, in a 0700 folder). Several
 * `mcp-harness` processes may share it: writes and token refreshes hold a lock file beside it
 * (`oauth.json.lock`, taken over when its holder stopped updating it for 30 s).
 */
export class FileSecretStore implements IMcpSecretStore {
  /** Holders of the file lock in this process: taken once, released when the last lets go. */
  private _holders = 0;
  private _release: Promise<() => Promise<void>> | undefined;

  constructor(readonly file: string) {}

  async get(key: string): Promise<string | undefined> {
    return this._read()[key];
  }

  async set(key: string, value: string): Promise<void> {
    await this._locked(() => this._write({ ...this._read(), [key]: value }));
  }

  async delete(key: string): Promise<void> {
    await this._locked(() => {
      const all = this._read();
      if (!(key in all)) return;
      delete all[key];
      this._write(all);
    });
  }

  /** The file's lock (one for every key); nested holders in this process share it. */
  async lock(): Promise<() => Promise<void>> {
    this._holders++;
    try {
      if (!this._release) {
        fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
        this._release = lockfile.lock(this.file, { realpath: false, stale: LOCK_STALE_MS, retries: LOCK_RETRIES });
      }
      await this._release;
    } catch (err) {
      await this._letGo();
      throw err;
    }
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      await this._letGo();
    };
  }

  private async _letGo(): Promise<void> {
    if (--this._holders > 0) return;
    const release = this._release;
    this._release = undefined;
    await (await release?.catch(() => undefined))?.().catch(() => undefined);
  }

  private async _locked(write: () => void): Promise<void> {
    const release = await this.lock();
    try {
      write();
    } finally {
      await release();
    }
  }

  private _read(): Record<string, string> {
    try {
      const value: unknown = JSON.parse(fs.readFileSync(this.file, 'utf8'));
      return typeof value === 'object' && value !== null ? (value as Record<string, string>) : {};
    } catch {
      return {};
    }
  }

  private _write(all: Record<string, string>): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const temp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(temp, JSON.stringify(all, null, 2), { mode: 0o600 });
    fs.chmodSync(temp, 0o600);
    fs.renameSync(temp, this.file);
  }
}

/** Secrets for this process only. */
export class MemorySecretStore implements IMcpSecretStore {
  private readonly _values = new Map<string, string>();
  async get(key: string): Promise<string | undefined> {
    return this._values.get(key);
  }
  async set(key: string, value: string): Promise<void> {
    this._values.set(key, value);
  }
  async delete(key: string): Promise<void> {
    this._values.delete(key);
  }
}

/** Receives the authorization redirect on `http://127.0.0.1:PORT/callback` (RFC 8252 loopback redirect). */
export class LoopbackRedirectReceiver implements IMcpRedirectReceiver {
  private _callback: ((query: URLSearchParams) => void) | undefined;

  private constructor(
    private readonly _server: http.Server,
    readonly redirectUrl: string,
    private readonly _open: (url: URL) => Promise<void>,
  ) {
    _server.on('request', (req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname !== '/callback' || !this._callback) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>MCP Harness</title><p>Signed in. You can close this tab.</p>');
      this._callback(url.searchParams);
    });
  }

  static async listen(open: (url: URL) => Promise<void>): Promise<LoopbackRedirectReceiver> {
    const server = http.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as { port: number };
    return new LoopbackRedirectReceiver(server, `http://127.0.0.1:${port}/callback`, open);
  }

  /**
   * One browser step at a time: a second one while the first waits is refused, so neither waits
   * for a redirect that was meant for the other.
   */
  async authorize(authorizationUrl: URL, signal: AbortSignal): Promise<URLSearchParams> {
    signal.throwIfAborted();
    if (this._callback) throw new Error('another sign-in is waiting for the browser on this redirect; finish or cancel it first');
    const arrived = new Promise<URLSearchParams>((resolve, reject) => {
      const onAbort = () => {
        this._callback = undefined;
        reject(signal.reason);
      };
      this._callback = (query) => {
        this._callback = undefined;
        signal.removeEventListener('abort', onAbort);
        resolve(query);
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
    await this._open(authorizationUrl);
    return arrived;
  }

  dispose(): void {
    this._callback = undefined;
    this._server.close();
    this._server.closeAllConnections();
  }
}

/** Opens `url` with `$BROWSER` when set, else the platform's opener; never waits for the browser to close. */
export function openInBrowser(url: URL, env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): Promise<void> {
  const [command, ...args] = env.BROWSER
    ? [...env.BROWSER.split(' ').filter(Boolean), url.href]
    : platform === 'darwin'
      ? ['open', url.href]
      : platform === 'win32'
        ? ['cmd', '/c', 'start', '""', url.href]
        : ['xdg-open', url.href];
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'ignore', detached: true, env });
    child.once('error', () => resolve()); // no opener: the URL was printed
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
  });
}

export interface CliAuthHostOptions {
  readonly secrets: IMcpSecretStore;
  /** Whether signing in is allowed now (the `login` command); otherwise only saved sign-ins are used. */
  readonly allowSignIn: boolean;
  /** An HTTPS URL of this client's metadata document, offered as its client ID where supported. */
  readonly clientMetadataUrl?: string;
  open(url: URL): Promise<void>;
  say(line: string): void;
}

/** The terminal as the core's auth host: `login` is the confirmation, the redirect comes back on loopback. */
export class CliAuthHost implements IMcpAuthHost {
  constructor(private readonly _o: CliAuthHostOptions) {}

  get secrets(): IMcpSecretStore {
    return this._o.secrets;
  }

  get clientMetadataUrl(): string | undefined {
    return this._o.clientMetadataUrl;
  }

  async confirmSignIn(server: string, authorizationHost: string): Promise<boolean> {
    if (!this._o.allowSignIn) return false;
    this._o.say(`Signing in to ${server} at ${authorizationHost}: your browser opens; finish there.`);
    return true;
  }

  createRedirectReceiver(): Promise<IMcpRedirectReceiver> {
    return LoopbackRedirectReceiver.listen(async (url) => {
      // Checked again here, before anything is printed or opened.
      assertBrowserUrl(url, 'authorization URL');
      this._o.say(`If no browser opened, visit: ${url.href}`);
      await this._o.open(url);
    });
  }
}
