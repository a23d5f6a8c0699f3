import { UnauthorizedError } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { McpAuthRequiredError } from '../../../src/core/auth/types';
import { MemoryAuthHost, MemoryOAuthServer, ORIGIN } from '../../support/memoryOAuth';
import { create, signedInWithHeldBrowser } from './httpAuthRig';

// Step-up and the edges of a connect attempt, on McpHttpAuth with the in-memory OAuth server.
const never = async () => undefined;

describe('McpHttpAuth step-up edges', () => {
  it('makes a call refused after a step-up that others started again with the new tokens, without asking', async () => {
    const { host, auth, callStepUp, finish } = await signedInWithHeldBrowser();
    let releaseLate!: () => void;
    const late = new Promise<void>((resolve) => (releaseLate = resolve));
    let attempts = 0;
    const lateCall = auth.withStepUp(
      async () => {
        attempts++;
        if (attempts === 1) {
          await late;
          throw new UnauthorizedError('refused with the old token');
        }
        return 'made again';
      },
      finish,
      undefined,
    );
    const first = callStepUp();
    await expect.poll(() => host.opened.length).toBe(2);
    host.release();
    await first;
    releaseLate();
    expect(await lateCall).toBe('made again');
    expect(host.asked).toHaveLength(2);
  });

  it('does not step up for a cancelled call or an error that is no refusal', async () => {
    const { host, auth, callStepUp, finish } = await signedInWithHeldBrowser();
    const first = callStepUp();
    await expect.poll(() => auth.canStepUp).toBe(true);
    const stopped = new AbortController();
    stopped.abort();
    const refusal = new UnauthorizedError('refused');
    await expect(auth.withStepUp(() => Promise.reject(refusal), finish, stopped.signal)).rejects.toBe(refusal);
    const broken = new Error('socket hang up');
    await expect(auth.withStepUp(() => Promise.reject(broken), finish, undefined)).rejects.toBe(broken);
    // A caller that was already cancelled leaves at once; the step-up goes on for the others.
    await expect(auth.stepUp(finish, stopped.signal)).rejects.toBeDefined();
    host.release();
    expect((await first).content).toEqual([{ type: 'text', text: 'admin done' }]);
    expect(host.asked).toHaveLength(2);
  });

  it('lets the redirect receiver go on dispose', async () => {
    const { host, auth } = await signedInWithHeldBrowser();
    auth.dispose();
    auth.dispose();
    expect(host.disposed).toBe(1);
    expect(auth.canStepUp).toBe(false);
  });
});

describe('McpHttpAuth connect edges', () => {
  it('ends OAuth requests in flight when the connect attempt is given up', async () => {
    const server = new MemoryOAuthServer();
    const { auth } = await create(server, new MemoryAuthHost(server));
    const silent = (_url: string | URL, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal!.reason), { once: true }));
    const fetch = auth.fetch(silent, undefined);
    const stop = new AbortController();
    const attempt = auth.run(() => fetch(`${ORIGIN}/.well-known/oauth-authorization-server`).then(never), never, stop.signal);
    stop.abort(new Error('the connection was given up'));
    await expect(attempt).rejects.toThrow('the connection was given up');
  });

  it('calls a refusal "sign in again" only for a stored sign-in used without asking', async () => {
    const server = new MemoryOAuthServer();
    const host = new MemoryAuthHost(server);
    await (await create(server, host)).run();
    const refuse = () => Promise.reject(new UnauthorizedError('refused'));
    const signal = new AbortController().signal;
    const asking = await create(server, host);
    await expect(asking.auth.run(refuse, never, signal)).rejects.toThrow(new McpAuthRequiredError('sign-in required'));
    const quiet = await create(server, host, { interactive: false });
    await expect(quiet.auth.run(refuse, never, signal)).rejects.toThrow(new McpAuthRequiredError('sign-in required: the saved sign-in is no longer valid, sign in again'));
    await expect(quiet.auth.run(() => Promise.reject(new McpAuthRequiredError('sign-in required')), never, signal)).rejects.toThrow('sign-in required: the saved sign-in is no longer valid, sign in again');
  });
});
