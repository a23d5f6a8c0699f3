import { afterEach, describe, expect, it } from 'vitest';
import { LoopbackRedirectReceiver } from '../../../src/cli/CliAuthHost';

const receivers: LoopbackRedirectReceiver[] = [];
afterEach(() => {
  for (const r of receivers.splice(0)) r.dispose();
});

/** A receiver whose "browser" records the URLs it was sent to. */
async function receiver(): Promise<{ r: LoopbackRedirectReceiver; opened: URL[] }> {
  const opened: URL[] = [];
  const r = await LoopbackRedirectReceiver.listen(async (url) => void opened.push(url));
  receivers.push(r);
  return { r, opened };
}

describe('LoopbackRedirectReceiver', () => {
  it('listens on 127.0.0.1 and hands back the query of the redirect', async () => {
    const { r, opened } = await receiver();
    expect(r.redirectUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const done = r.authorize(new URL('https://as.example/authorize?x=1'), new AbortController().signal);
    await expect.poll(() => opened.length).toBe(1);
    const page = await fetch(`${r.redirectUrl}?code=abc&state=s1`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Signed in');
    expect(Object.fromEntries(await done)).toEqual({ code: 'abc', state: 's1' });
    // Nothing waits any more: a late or repeated redirect is not taken.
    expect((await fetch(`${r.redirectUrl}?code=again`)).status).toBe(404);
  });

  it('refuses a second browser step while one waits, and takes the next one after it ends', async () => {
    const { r } = await receiver();
    const first = r.authorize(new URL('https://as.example/a'), new AbortController().signal);
    await expect(r.authorize(new URL('https://as.example/b'), new AbortController().signal)).rejects.toThrow(/another sign-in is waiting/);
    await fetch(`${r.redirectUrl}?code=one`);
    expect((await first).get('code')).toBe('one');
    const second = r.authorize(new URL('https://as.example/c'), new AbortController().signal);
    await fetch(`${r.redirectUrl}?code=two`);
    expect((await second).get('code')).toBe('two');
  });

  it('gives up on cancel, and is free for the next sign-in', async () => {
    const { r } = await receiver();
    const abort = new AbortController();
    const waiting = r.authorize(new URL('https://as.example/a'), abort.signal);
    abort.abort(new Error('cancelled by the user'));
    await expect(waiting).rejects.toThrow('cancelled by the user');
    expect((await fetch(`${r.redirectUrl}?code=late`)).status).toBe(404);
    await expect(r.authorize(new URL('https://as.example/b'), abort.signal)).rejects.toThrow('cancelled by the user');
    const next = r.authorize(new URL('https://as.example/c'), new AbortController().signal);
    await fetch(`${r.redirectUrl}?code=next`);
    expect((await next).get('code')).toBe('next');
  });
});
