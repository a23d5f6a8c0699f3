import { OAuthError, SdkHttpError, UnauthorizedError, type FetchLike, type OAuthClientProvider } from '@modelcontextprotocol/client';
import type { McpOAuthClientConfig } from '../config/types';
import { guardAuthFetch } from './McpAuthFetchGuard';
import { McpOAuthProvider, readMissingScopes, readSignInState } from './McpOAuthProvider';
import { McpTokenRefresher } from './McpTokenRefresher';
import { createMachineIdentityProvider, isMachineIdentity } from './machineIdentity';
import { isAuthFailure, McpAuthRequiredError, McpScopeRequiredError, type IMcpAuthHost, type IMcpConnectAuth, type IMcpRedirectReceiver, type McpFinishAuth } from './types';
import { findCause } from '../base/errors';

/** Sign-ins one connect may go through: the first, and one step-up to more scopes. */
const MAX_SIGN_INS = 2;

export interface McpHttpAuthOptions {
  readonly server: string;
  readonly serverUrl: string;
  /** Asking, the redirect and the token store; without it only a machine identity can authenticate. */
  readonly host?: IMcpAuthHost;
  /** Whether the user asked to sign in now; otherwise only stored tokens are used (and refreshed). */
  readonly interactive: boolean;
  readonly preregistered?: McpOAuthClientConfig;
  /** Whether the entry sends its own Authorization header (then OAuth stays out of the way). */
  readonly hasAuthorizationHeader: boolean;
  /** Longest wait for one answer from the authorization server (default 15 s). */
  readonly requestTimeoutMs?: number;
  log?(message: string): void;
}

/**
 * OAuth for one connection attempt to an HTTP server. The SDK does discovery, registration, PKCE,
 * token exchange, refresh and step-up through {@link McpOAuthProvider}; this decides when the
 * browser may open and carries the redirect back.
 */
export class McpHttpAuth implements IMcpConnectAuth {
  private _receiver: IMcpRedirectReceiver | undefined;
  private _hadCredentials = false;
  private _refresher: McpTokenRefresher | undefined;
  private _sharedStepUp: { readonly controller: AbortController; waiting: number } | undefined;
  private _stepUp: Promise<void> | undefined;
  private _stepUpsDone = 0;
  /** The signal of the connection attempt or step-up under way: OAuth requests in flight end with it. */
  private _signal: AbortSignal | undefined;

  private constructor(
    private readonly _o: McpHttpAuthOptions,
    /**
     * Undefined: nothing stored and no sign-in asked for, so a 401 means "sign-in required". A
     * machine identity's provider is the SDK's (client credentials), needing no person at all.
     */
    readonly provider: OAuthClientProvider | undefined,
  ) {}

  static async create(options: McpHttpAuthOptions): Promise<McpHttpAuth> {
    const { host, serverUrl, preregistered } = options;
    if (options.hasAuthorizationHeader) return new McpHttpAuth(options, undefined);
    if (isMachineIdentity(preregistered)) {
      if (!preregistered.issuer) options.log?.(`oauth.issuer is not set: the ${preregistered.grant === 'jwt_bearer' ? 'workload token goes' : 'client credentials go'} to whichever authorization server this MCP server names`);
      return new McpHttpAuth(options, createMachineIdentityProvider(preregistered));
    }
    if (!host) return new McpHttpAuth(options, undefined);
    const state = await readSignInState(host.secrets, serverUrl);
    if (!options.interactive && state !== 'tokens') {
      const auth = new McpHttpAuth(options, undefined);
      auth._hadCredentials = state === 'lost';
      return auth;
    }
    const receiver = options.interactive ? await host.createRedirectReceiver(options.server) : undefined;
    // A sign-in after the server demanded more access asks for it now, not at the next refusal.
    const missing = options.interactive ? await readMissingScopes(host.secrets, serverUrl) : [];
    if (missing.length > 0) options.log?.(`signing in again for the access the server asked for (${missing.join(' ')})`);
    const base = { serverUrl, secrets: host.secrets, preregistered, clientMetadataUrl: host.clientMetadataUrl };
    const provider = new McpOAuthProvider({ ...base, redirectUrl: receiver?.redirectUrl, reauthorize: missing.length > 0 });
    const auth = new McpHttpAuth(options, provider);
    auth._receiver = receiver;
    auth._refresher = new McpTokenRefresher(base, (m) => options.log?.(m));
    auth._hadCredentials = state !== 'none' && !options.interactive;
    return auth;
  }

  /** The provider that signs a person in through the browser, when that is what this connection uses. */
  private get _signIn(): McpOAuthProvider | undefined {
    return this.provider instanceof McpOAuthProvider ? this.provider : undefined;
  }

  /** Whether the connection keeps this after connecting: the user signed in now, so a step-up can ask again. */
  get keepsForSession(): boolean {
    return this._signIn?.interactive === true;
  }

  /**
   * Runs `connect` until it succeeds. When the SDK stops at the browser step, asks the user, opens
   * the authorization URL, checks the redirect's `state`, hands it to `finish` (which validates
   * `iss` and redeems the code) and connects again.
   */
  async run(connect: () => Promise<void>, finish: (callback: URLSearchParams) => Promise<void>, signal: AbortSignal): Promise<void> {
    this._signal = signal;
    for (let signIns = 0; ; signIns++) {
      try {
        return await connect();
      } catch (err) {
        const pending = this._signIn?.pendingAuthorization;
        if (signal.aborted || !pending || !(err instanceof UnauthorizedError || err instanceof SdkHttpError)) throw this._translate(err);
        if (signIns >= MAX_SIGN_INS) throw new McpAuthRequiredError('sign-in required: the server still refuses access after signing in');
        await this._authorize(finish, signal);
      }
    }
  }

  /**
   * The fetch for the transport: `base` with every OAuth request checked and bounded (see
   * {@link guardAuthFetch}), and a refused expired token refreshed once for all requests refused
   * with it (see {@link McpTokenRefresher}).
   */
  fetch(base: FetchLike | undefined, requestInit: RequestInit | undefined): FetchLike {
    const guarded = guardAuthFetch(base, { serverUrl: this._o.serverUrl, timeoutMs: this._o.requestTimeoutMs, signal: () => this._signal });
    return this._refresher ? this._refresher.wrap(guarded, requestInit) : guarded;
  }

  /**
   * Counts step-ups that ended with new tokens: a call refused while one ran (its refusal came
   * after) is made again with them rather than asking once more.
   */
  get stepUpsDone(): number {
    return this._stepUpsDone;
  }

  /** Whether a mid-session request for more access can be answered by asking the user again. */
  get canStepUp(): boolean {
    return this._receiver !== undefined && (this._stepUp !== undefined || this._signIn?.pendingAuthorization !== undefined);
  }

  /**
   * Answers a mid-session step-up: asks, opens the browser, redeems the code through `finish`.
   * Calls refused together share one: the user is asked once, and each call is then made again.
   */
  stepUp(finish: (callback: URLSearchParams) => Promise<void>, signal: AbortSignal): Promise<void> {
    // A step-up whose callers all left is ending: a call refused now starts a new one.
    if (!this._stepUp || this._sharedStepUp?.controller.signal.aborted) {
      if (!this._signIn?.pendingAuthorization) return Promise.reject(new McpAuthRequiredError('sign-in required'));
      // The shared step-up runs under a signal of its own: it ends only when every call waiting on
      // it was cancelled, so one caller's Stop never fails the others.
      const controller = new AbortController();
      const shared = { controller, waiting: 0 };
      this._signal = controller.signal;
      const started = this._authorize(finish, controller.signal)
        .then(() => void this._stepUpsDone++)
        .finally(() => {
          if (this._sharedStepUp !== shared) return;
          this._stepUp = undefined;
          this._sharedStepUp = undefined;
        });
      this._stepUp = started;
      this._sharedStepUp = shared;
    }
    return this._waitForStepUp(this._stepUp, signal);
  }

  /** Waits for the shared step-up on behalf of one caller, whose cancellation lets only it go (and ends the step-up when it was the last). */
  private _waitForStepUp(step: Promise<void>, signal: AbortSignal): Promise<void> {
    const shared = this._sharedStepUp;
    if (!shared) return step;
    shared.waiting++;
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const leave = () => {
        settled = true;
        shared.waiting--;
        signal.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        if (settled) return;
        leave();
        if (shared.waiting === 0) shared.controller.abort(signal.reason);
        reject(signal.reason ?? new Error('cancelled'));
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      step.then(
        () => {
          if (settled) return;
          leave();
          resolve();
        },
        (err: unknown) => {
          if (settled) return;
          leave();
          reject(err);
        },
      );
    });
  }

  async withStepUp<T>(attempt: () => Promise<T>, finish: McpFinishAuth, signal: AbortSignal | undefined): Promise<T> {
    const stepUpsBefore = this._stepUpsDone;
    try {
      return await attempt();
    } catch (err) {
      // A refusal that came after a step-up other attempts started is answered by that step-up.
      const steppedUp = this._stepUpsDone !== stepUpsBefore;
      if (!(steppedUp || this.canStepUp) || signal?.aborted || !isAuthFailure(err)) throw err;
      if (!steppedUp) await this.stepUp(finish, signal ?? new AbortController().signal);
      return await attempt();
    }
  }

  dispose(): void {
    this._receiver?.dispose();
    this._receiver = undefined;
  }

  /** The browser step for the pending authorization, then its code redeemed through `finish`. */
  private async _authorize(finish: (callback: URLSearchParams) => Promise<void>, signal: AbortSignal): Promise<void> {
    const provider = this._signIn!;
    try {
      const url = provider.takePendingAuthorization();
      if (!url) throw new McpAuthRequiredError('sign-in required');
      await finish(await this._browserStep(url, signal));
    } finally {
      provider.endAuthorization();
    }
  }

  private async _browserStep(authorizationUrl: URL, signal: AbortSignal): Promise<URLSearchParams> {
    const { server } = this._o;
    const host = this._o.host!;
    if (!(await host.confirmSignIn(server, authorizationUrl.host))) throw new McpAuthRequiredError('sign-in required: sign-in was declined');
    const callback = await this._receiver!.authorize(authorizationUrl, signal);
    const error = callback.get('error');
    // The redirect's own text is not shown: in a mix-up attack it comes from the attacker.
    if (error !== null) throw new McpAuthRequiredError(`sign-in required: the authorization server answered "${safeCode(error)}"`);
    if (callback.get('state') !== this._signIn!.expectedState) throw new McpAuthRequiredError('sign-in required: the redirect did not match the sign-in that was started');
    return callback;
  }

  /** Errors that mean "the user must sign in" become {@link McpAuthRequiredError}; others pass. */
  private _translate(err: unknown): unknown {
    if (isMachineIdentity(this._o.preregistered)) return this._translateMachine(err);
    const found = findAuthRequired(err);
    if (found) return this._hadCredentials && !(found instanceof McpScopeRequiredError) ? new McpAuthRequiredError('sign-in required: the saved sign-in is no longer valid, sign in again') : found;
    const status = err instanceof SdkHttpError ? err.status : undefined;
    if (err instanceof UnauthorizedError || (status === 401 && !this._o.hasAuthorizationHeader)) {
      return new McpAuthRequiredError(this._hadCredentials ? 'sign-in required: the saved sign-in is no longer valid, sign in again' : 'sign-in required');
    }
    return err;
  }

  /**
   * A machine identity has no one to ask: a refused token request is an error naming the
   * authorization server's answer (`invalid_client` for a wrong secret or a rejected assertion),
   * never "sign in".
   */
  private _translateMachine(err: unknown): unknown {
    const { clientId, grant } = this._o.preregistered!;
    const what = grant === 'jwt_bearer' ? `workload token of "${clientId}"` : grant === 'enterprise_managed' ? `enterprise-managed sign-in of "${clientId}"` : `client credentials of "${clientId}"`;
    const oauth = findCause(err, OAuthError);
    if (oauth) return new Error(`the authorization server refused the ${what}: ${safeCode(oauth.code)}${oauth.message ? ` (${oauth.message})` : ''}`, { cause: err });
    const status = err instanceof SdkHttpError ? err.status : undefined;
    if (err instanceof UnauthorizedError || status === 401) return new Error(`the server refused the access token obtained with the ${what}`, { cause: err });
    return err;
  }
}

/** The {@link McpAuthRequiredError} in `err` or its causes. */
function findAuthRequired(err: unknown): McpAuthRequiredError | undefined {
  return findCause(err, McpAuthRequiredError);
}

/** OAuth error codes are short ASCII words; anything else is not echoed. */
function safeCode(code: string): string {
  return /^[\w.-]{1,64}$/.test(code) ? code : 'an error';
}
