import * as path from 'node:path';
import { build } from 'esbuild';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatSuggestion, WebviewRequest } from '../../src/shared/chatProtocol';
import { repoPath } from '../support/servers';

// The message box's suggestions (`/`, `@`) and prompt form in a real Chromium page: the panel's own
// components, with the test answering the host's side of each request.
let browser: Browser;
let page: Page;
let bundle: string;
/** The host's answers: a function per request type (a promise may be slow on purpose). */
let answer: (request: WebviewRequest) => Promise<{ ok: boolean; value?: unknown; error?: string }>;

const prompt = (name: string, args: Array<{ name: string; required: boolean }> = []): ChatSuggestion => ({ kind: 'prompt', server: 'srv', name, description: `The ${name} prompt`, arguments: args });
const COMMANDS: ChatSuggestion[] = [
  { kind: 'command', name: 'tools', description: 'List the enabled tools', insert: '/tools ' },
  { kind: 'command', name: 'mcp', description: 'Show each server', insert: '/mcp' },
];
const PROMPTS = [prompt('greet'), prompt('review', [{ name: 'genre', required: true }, { name: 'title', required: false }])];

function host(request: WebviewRequest): Promise<{ ok: boolean; value?: unknown; error?: string }> {
  switch (request.type) {
    case 'suggest': {
      const all = request.trigger === '/' ? [...COMMANDS, ...PROMPTS] : [{ kind: 'resource', server: 'srv', uri: 'srv://readme', name: 'readme', mimeType: 'text/markdown' }];
      const q = request.query;
      return Promise.resolve({ ok: true, value: { items: all.filter((s) => JSON.stringify(s).includes(q)) } });
    }
    case 'complete':
      return Promise.resolve({ ok: true, value: { values: ['fantasy', 'history'].filter((v) => v.startsWith(request.argument.value)) } });
    case 'usePrompt':
      return Promise.resolve(request.name === 'greet' ? { ok: true, value: { text: 'Hello there.' } } : { ok: true, value: { text: `Review ${JSON.stringify(request.arguments)}` } });
    default:
      return Promise.resolve({ ok: true });
  }
}

beforeAll(async () => {
  const out = await build({
    entryPoints: [repoPath('test/support/webviewSuggestPage.mjs')],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    absWorkingDir: path.resolve(repoPath('.')),
    logLevel: 'silent',
  });
  bundle = out.outputFiles[0]!.text;
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking'] });
});

afterAll(async () => {
  await browser?.close();
});

afterEach(async () => {
  await page?.close();
});

beforeEach(async () => {
  answer = host;
  page = await browser.newPage();
  await page.exposeFunction('hostAnswer', (request: WebviewRequest) => answer(request));
  await page.setContent('<!doctype html><html><body></body></html>');
  await page.addScriptTag({ content: bundle });
  await box().waitFor();
});

const box = (): Locator => page.getByRole('textbox', { name: 'Message' });
const list = (): Locator => page.getByRole('listbox', { name: /Commands and prompts|Resources/ });
const requests = (): Promise<WebviewRequest[]> => page.evaluate('window.requests') as Promise<WebviewRequest[]>;
const labels = async (): Promise<string[]> => (await list().getByRole('option').locator('.label').allInnerTexts());

describe('the message box suggestions', () => {
  it('opens on "/", moves with Up/Down (the box points at the option), takes one with Tab', async () => {
    await box().pressSequentially('/');
    await list().waitFor();
    expect(await labels()).toEqual(['/tools', '/mcp', '/srv.greet', '/srv.review']);
    const options = list().getByRole('option');
    expect(await box().getAttribute('aria-activedescendant')).toBe(await options.nth(0).getAttribute('id'));
    await box().press('ArrowUp');
    expect(await options.nth(3).getAttribute('aria-selected')).toBe('true');
    expect(await box().getAttribute('aria-activedescendant')).toBe(await options.nth(3).getAttribute('id'));
    await box().press('ArrowDown');
    await box().press('Tab');
    await list().waitFor({ state: 'hidden' });
    expect(await box().inputValue()).toBe('/tools ');
    await expect.poll(() => box().evaluate((b) => b === b.getRootNode().activeElement)).toBe(true);
  });

  it('sends a command typed out in full with Enter, and Escape closes the list without clearing the box', async () => {
    await box().pressSequentially('/mcp');
    await expect.poll(labels).toEqual(['/mcp']);
    await box().press('Enter');
    await expect.poll(requests).toEqual([{ type: 'send', text: '/mcp' }]);
    await box().pressSequentially('/to');
    await list().waitFor();
    await box().press('Escape');
    await list().waitFor({ state: 'hidden' });
    expect(await box().getAttribute('aria-expanded')).toBe('false');
    expect(await box().inputValue()).toBe('/to');
  });

  it('shows the latest answer when an earlier one arrives late', async () => {
    let release: () => void = () => undefined;
    let late: Promise<unknown> = Promise.resolve();
    answer = (request) => {
      if (request.type !== 'suggest' || request.query !== 're') return host(request);
      const answered = new Promise<void>((r) => (release = r)).then(() => host(request));
      late = answered;
      return answered;
    };
    await box().pressSequentially('/re');
    await box().pressSequentially('v');
    await expect.poll(labels).toEqual(['/srv.review']);
    release();
    await late;
    // The late answer has reached the page; two frames later the list would show it, had it been taken.
    await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
    expect(await labels()).toEqual(['/srv.review']);
  });

  it('puts a prompt without arguments in the box at once, to be sent by the person', async () => {
    await box().pressSequentially('/gre');
    await expect.poll(labels).toEqual(['/srv.greet']);
    await box().press('Enter');
    await expect.poll(() => box().inputValue()).toBe('Hello there.');
    expect((await requests()).filter((r) => r.type === 'send')).toEqual([]);
  });

  it("asks a prompt's arguments in a form with the server's suggestions, and checks the required ones", async () => {
    await box().pressSequentially('/rev');
    await expect.poll(labels).toEqual(['/srv.review']);
    await box().press('Enter');
    const form = page.getByRole('form', { name: '/srv.review' });
    const genre = form.getByRole('combobox', { name: 'genre' });
    await expect.poll(() => genre.evaluate((g) => g === g.getRootNode().activeElement)).toBe(true);
    const suggestions = form.getByRole('listbox', { name: 'Suggestions for genre' });
    await expect.poll(() => suggestions.getByRole('option').allInnerTexts()).toEqual(['fantasy', 'history']);
    // Enter without a highlighted suggestion submits: the required field is named.
    await genre.press('Escape');
    await genre.press('Enter');
    await form.getByRole('alert').filter({ hasText: 'genre is required' }).waitFor();
    expect(await genre.getAttribute('aria-invalid')).toBe('true');
    await genre.pressSequentially('h');
    await expect.poll(() => suggestions.getByRole('option').allInnerTexts()).toEqual(['history']);
    await genre.press('ArrowDown');
    await genre.press('Enter');
    expect(await genre.inputValue()).toBe('history');
    await genre.press('Enter');
    await form.waitFor({ state: 'detached' });
    expect(await box().inputValue()).toBe('Review {"genre":"history"}');
  });

  it('closes the form with Escape and gives the box the focus back', async () => {
    await box().pressSequentially('/rev');
    await expect.poll(labels).toEqual(['/srv.review']);
    await box().press('Enter');
    const genre = page.getByRole('combobox', { name: 'genre' });
    await expect.poll(() => genre.evaluate((g) => g === g.getRootNode().activeElement)).toBe(true);
    await genre.press('Escape');
    await genre.press('Escape');
    await page.getByRole('form').waitFor({ state: 'detached' });
    await expect.poll(() => box().evaluate((b) => b === b.getRootNode().activeElement)).toBe(true);
  });

  it('shows what the server refused under the list', async () => {
    answer = async (request) => (request.type === 'usePrompt' ? { ok: false, error: 'srv: missing required argument "x"' } : host(request));
    await box().pressSequentially('/gre');
    await expect.poll(labels).toEqual(['/srv.greet']);
    await box().press('Enter');
    await page.getByRole('alert').filter({ hasText: '/srv.greet: srv: missing required argument "x"' }).waitFor();
    expect(await box().inputValue()).toBe('');
  });

  it('attaches a resource after "@" and keeps its name in the text', async () => {
    await box().pressSequentially('look at @rea');
    await expect.poll(labels).toEqual(['@readme']);
    await box().press('Enter');
    await expect.poll(() => box().inputValue()).toBe('look at @readme ');
    const asked: WebviewRequest[] = [];
    answer = async (request) => (asked.push(request), host(request));
    await box().pressSequentially('and @');
    await expect.poll(labels).toEqual(['@readme']);
    await list().getByRole('option').first().click();
    await expect.poll(() => asked.filter((r) => r.type === 'attachResource')).toEqual([{ type: 'attachResource', server: 'srv', uri: 'srv://readme' }]);
  });
});
