// What the reference server offers besides tools, from the chat: "/" lists the chat's commands and
// every prompt as /<server>.<prompt> (keyboard: Up/Down, Enter, Escape; listbox semantics); a
// prompt with arguments opens a form whose fields complete through completion/complete (the
// second from the first); its message lands in the message box to be read and sent, and reaches
// the model. "@" attaches a resource whose text reaches the model's request (the loopback fake
// model records it); an attached resource's chip says "(updated)" when the server reports a
// change. A tool result's resource links (and a binary resource it embeds) open and attach from
// its card; a call that
// needs a page visited first (-32042) shows the page card and ends, declined (or not opened after
// all), with the reason; accepted and opened, it waits for "I've Finished" and is made again.
// Screenshots light, dark and high contrast.
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { FAKE_MODEL_ID, startFakeModel } from '../support/fakeOpenAiModel.mjs';
import { approveFromNotification, openViewContainer, serverTreeRow, waitForText, waitForWorkbench } from './lib.mjs';
import { button, messageBox, openChat, scratchWorkspace, send, setColorTheme, waitCardState, waitIdle } from './chatLib.mjs';

export async function run(ctx) {
  const { page } = ctx;
  const model = await startFakeModel();
  const folder = scratchWorkspace('asks-workspace', { ...model.chatSettings, 'mcpHarness.permissions.allow': ['mcp__everything__*'] });
  const shot = (name) => page.screenshot({ path: join(ctx.resultsDir, `ui-asks-context-${name}.png`) });
  /** Screenshots in light, dark and high contrast; the theme picker takes the focus, so `reshow` puts back what is shown. */
  const themed = async (name, reshow = async () => {}) => {
    for (const [theme, file] of [['Light Modern', 'light'], ['Dark Modern', 'dark'], ['Dark High Contrast', 'hc']]) {
      await setColorTheme(page, theme);
      await reshow();
      await page.waitForTimeout(500); // the webview repaints with the new variables
      await shot(`${name}-${file}`);
    }
  };
  try {
    await page.goto(ctx.server.workbenchUrl({ folder, extensionDevelopmentPath: ctx.extensionPath }));
    await waitForWorkbench(page);
    await openViewContainer(page, 'MCP Servers', { timeout: 90_000 });
    const chat = await openChat(page);
    await approveFromNotification(page, { count: 1 });
    await waitForText(serverTreeRow(page, 'everything').locator('.label-description'), /^19 tools$/, { timeout: 90_000 });
    await waitForText(chat.locator('mcp-chat-header'), new RegExp(FAKE_MODEL_ID));
    const box = messageBox(chat);
    /** Sends a direct command and returns its new card (once it is there, the turn is known to have started). */
    const call = async (text) => {
      const cards = chat.locator('mcp-tool-card');
      const before = await cards.count();
      await send(chat, text);
      await cards.nth(before).waitFor();
      return cards.nth(before);
    };

    // "/": the commands and the prompts, navigable from the message box, which keeps the focus.
    await box.click();
    await box.pressSequentially('/');
    const list = chat.getByRole('listbox', { name: 'Commands and prompts' });
    await list.waitFor();
    const options = list.getByRole('option');
    await waitForText(list, /\/everything\.completable-prompt/);
    for (const name of ['/tools', '/call', '/mcp', '/everything.simple-prompt', '/everything.args-prompt', '/everything.completable-prompt', '/everything.resource-prompt']) {
      assert.ok((await list.innerText()).includes(name), `"/" should offer ${name}`);
    }
    assert.equal(await box.getAttribute('aria-expanded'), 'true');
    assert.equal(await box.getAttribute('aria-controls'), 'mcp-suggest-list');
    await box.pressSequentially('comp');
    await waitForText(options.first(), /\/everything\.completable-prompt\s*Team Management: First argument choice narrows values for second argument\./);
    assert.equal(await options.first().getAttribute('aria-selected'), 'true');
    assert.equal(await box.getAttribute('aria-activedescendant'), await options.first().getAttribute('id'));
    await box.press('Escape');
    await list.waitFor({ state: 'hidden' });
    assert.equal(await box.getAttribute('aria-expanded'), 'false');
    await box.fill('');
    await box.pressSequentially('/');
    await waitForText(list, /\/everything\.completable-prompt/);
    await box.press('ArrowDown');
    assert.equal(await options.nth(1).getAttribute('aria-selected'), 'true');
    assert.equal(await box.getAttribute('aria-activedescendant'), await options.nth(1).getAttribute('id'));
    await box.press('ArrowUp');
    assert.equal(await options.first().getAttribute('aria-selected'), 'true');
    // Back in the box, the list shows again.
    await themed('slash', async () => {
      await box.focus();
      await waitForText(list, /\/everything\.completable-prompt/);
    });

    // The prompt with completable arguments: a form whose suggestions come from the server.
    await box.pressSequentially('completable');
    await waitForText(options.first(), /\/everything\.completable-prompt/);
    await box.press('Enter');
    const form = chat.getByRole('form', { name: '/everything.completable-prompt' });
    await form.waitFor();
    const department = form.getByRole('combobox', { name: 'department' });
    const departments = form.getByRole('listbox', { name: 'Suggestions for department' });
    await waitForText(departments, /Engineering[\s\S]*Sales[\s\S]*Marketing[\s\S]*Support/);
    await department.pressSequentially('Eng');
    await waitForText(departments, /^\s*Engineering\s*$/);
    assert.equal(await departments.getByRole('option').count(), 1);
    await department.press('ArrowDown');
    assert.equal(await department.getAttribute('aria-activedescendant'), 'pf-department-opt-0');
    await department.press('Enter');
    assert.equal(await department.inputValue(), 'Engineering');
    await department.press('Tab');
    const person = form.getByRole('combobox', { name: 'name' });
    const names = form.getByRole('listbox', { name: 'Suggestions for name' });
    // The second argument's suggestions depend on the first (context.arguments).
    await waitForText(names, /^\s*Alice\s*Bob\s*Charlie\s*$/);
    assert.equal(await names.getByRole('option').count(), 3);
    // Back in the field, Down opens its suggestions again, the first one highlighted.
    const reopen = async () => {
      await person.focus();
      await person.press('ArrowDown');
      await waitForText(names, /Alice/);
    };
    await themed('prompt-form', reopen);
    assert.equal(await person.getAttribute('aria-activedescendant'), 'pf-name-opt-0');
    await person.press('Enter');
    assert.equal(await person.inputValue(), 'Alice');
    await button(form, 'Use Prompt').click();
    await form.waitFor({ state: 'detached' });
    const promptText = 'Please promote Alice to the head of the Engineering team.';
    assert.equal(await box.inputValue(), promptText, "the prompt's message is in the box, to read and edit before sending");
    await shot('prompt-in-box');
    let requests = model.requests.length;
    await box.press('Enter');
    await waitForText(chat.locator('mcp-chat-item', { hasText: /Echo:/ }).last(), /Echo:\s+Please promote Alice/);
    await waitIdle(chat);
    assert.equal(model.requests.length, requests + 1);
    assert.equal(model.requests.at(-1).messages.at(-1).content, promptText);

    // "@": a resource attached by name; its text reaches the model with the message.
    await box.pressSequentially('summarize @feat');
    const resources = chat.getByRole('listbox', { name: 'Resources' });
    await waitForText(resources.getByRole('option').first(), /@features\.md\s*everything · text\/markdown/);
    await themed('at', async () => {
      await box.focus();
      await waitForText(resources.getByRole('option').first(), /@features\.md/);
    });
    await box.press('Enter');
    const chip = chat.locator('mcp-composer .chip', { hasText: 'features.md' });
    await chip.waitFor();
    assert.match((await chip.getAttribute('title')) ?? '', /^features\.md \(text\/markdown, [\d.]+ KB · everything\)$/);
    assert.equal(await box.inputValue(), 'summarize @features.md ');
    requests = model.requests.length;
    await box.press('Enter');
    // The turn is over once its answer shows (Send is enabled before it starts, too).
    await chat.locator('mcp-chat-item', { hasText: /Echo:\s+summarize @features\.md/ }).waitFor();
    await waitIdle(chat);
    assert.equal(model.requests.length, requests + 1);
    const sent = model.requests.at(-1).messages.at(-1).content;
    assert.match(sent, /^summarize @features\.md\n\nAttached by the user:/);
    assert.ok(sent.includes('<context kind="resource" server="everything" uri="demo://resource/static/document/features.md">\n# Everything Server - Features'), sent.slice(0, 400));
    await chip.waitFor({ state: 'detached' });

    // A chip follows its resource: subscribed while shown, read again when the server says it changed.
    await box.pressSequentially('@feat');
    await waitForText(resources.getByRole('option').first(), /@features\.md/);
    await box.press('Enter');
    await chip.waitFor();
    await box.fill('');
    // A direct command leaves the chip for the next message; this one makes the server report changes.
    await waitCardState(await call('/call mcp__everything__toggle-subscriber-updates {}'), 'done');
    await waitIdle(chat);
    await waitForText(chip, /features\.md\s*\(updated\)/);
    assert.match((await chip.getAttribute('title')) ?? '', /changed on the server since attached$/);
    await shot('chip-updated');
    await button(chat.locator('mcp-composer'), 'Remove features.md').click();
    await chip.waitFor({ state: 'detached' });
    await waitCardState(await call('/call mcp__everything__toggle-subscriber-updates {}'), 'done');
    await waitIdle(chat);

    // A result's resource links: attach one, open another.
    let card = await call('/call mcp__everything__get-resource-links {"count":2}');
    await waitCardState(card, 'done');
    await waitIdle(chat);
    await button(card, 'Attach Text Resource 2').click();
    await chat.locator('mcp-composer .chip', { hasText: 'Text Resource 2' }).waitFor();
    await shot('resource-links');
    await button(card, 'Open Text Resource 2').click();
    await page.locator('.tabs-container .tab', { hasText: 'Text Resource 2' }).waitFor();
    // The editor shows spaces as no-break spaces.
    await waitForText(page.locator('.editor-instance .view-lines').first(), /Resource\s2:\sThis\sis\sa\splaintext\sresource\screated\sat/);
    await button(chat.locator('mcp-composer'), 'Remove Text Resource 2').click();
    await waitIdle(chat);

    // A binary resource embedded in a result is offered on its card too, and attached as it came.
    card = await call('/call mcp__everything__get-resource-reference {"resourceType":"Blob","resourceId":1}');
    await waitCardState(card, 'done');
    await waitIdle(chat);
    const blobUri = 'demo://resource/dynamic/blob/1';
    await waitForText(card.locator('mcp-resource-links'), /embedded in the result, \d+ B/);
    await button(card, `Attach ${blobUri}`).click();
    const blobChip = chat.locator('mcp-composer .chip', { hasText: blobUri });
    await blobChip.waitFor();
    assert.match((await blobChip.getAttribute('title')) ?? '', /\(text\/plain, \d+ B · everything\)$/);
    await shot('embedded-resource');
    await button(chat.locator('mcp-composer'), `Remove ${blobUri}`).click();
    await blobChip.waitFor({ state: 'detached' });

    // "Add Context..." offers the servers' resources and templates; a template's variable is typed
    // with the server's suggestions below it.
    await button(chat.locator('mcp-composer'), 'Add Context...').click();
    const quick = page.locator('.quick-input-widget');
    const quickInput = quick.locator('input');
    const quickRow = (text) => quick.locator('.quick-input-list .monaco-list-row', { hasText: text }).first();
    await quickRow('MCP Resource...').click();
    await waitForText(quick, /Attach which resource\?/);
    await quickInput.fill('Dynamic Text');
    await quickRow('Dynamic Text Resource').click();
    await waitForText(quick, /Dynamic Text Resource: resourceId \(1\/1\)/);
    await quickInput.fill('3');
    // The server's completer answers the integer it was given.
    await quickRow('3').waitFor();
    await shot('add-context-template');
    await quickInput.press('Enter');
    const templateChip = chat.locator('mcp-composer .chip', { hasText: 'Dynamic Text Resource (3)' });
    await templateChip.waitFor();
    await button(chat.locator('mcp-composer'), 'Remove Dynamic Text Resource (3)').click();
    await templateChip.waitFor({ state: 'detached' });

    // A call the server refuses until a page is visited (-32042): the page's card; declined, the call ends with the reason.
    card = await call('/call mcp__everything__trigger-url-elicitation {"url":"https://example.com/pay","message":"Pay","errorPath":true}');
    const ask = chat.locator('mcp-ask-card').first();
    await waitForText(ask, /everything needs you to open a page before the tool can run, on/);
    await waitForText(ask.locator('.host'), /^modelcontextprotocol\.io$/);
    await button(ask, 'Open modelcontextprotocol.io').waitFor();
    await themed('url-required');
    const pages = page.context().pages().length;
    await button(ask, 'Decline').click();
    await waitCardState(card, 'error');
    await waitForText(card, /the server needs the user to open a page on modelcontextprotocol\.io first .* the user declined to open it, so the tool did not run/);
    assert.equal(page.context().pages().length, pages, 'a declined page was opened');
    await waitIdle(chat);

    // Accepted, but VS Code's own question about the external site is answered Cancel: the page was
    // not opened, so nothing waits for it and the call ends with that reason. (Each attempt has its
    // own address: the server takes a second call for the same one as its retry.)
    const external = page.locator('.monaco-dialog-box');
    card = await call('/call mcp__everything__trigger-url-elicitation {"url":"https://example.net/checkout","message":"Pay","errorPath":true}');
    await waitForText(ask.locator('.host'), /^modelcontextprotocol\.io$/);
    await button(ask, 'Open modelcontextprotocol.io').click();
    await external.waitFor({ timeout: 30_000 });
    await external.getByRole('button', { name: 'Cancel' }).click();
    await waitCardState(card, 'error');
    await waitForText(card, /the page was not opened, so the tool did not run/);
    assert.equal(await chat.locator('mcp-ask-card').count(), 0, 'a card still waits for a page that was not opened');
    await waitIdle(chat);

    // Accepted and opened (a new tab, offline here): the card waits until "I've Finished", and the
    // call is made again; the retry asks for its own page.
    card = await call('/call mcp__everything__trigger-url-elicitation {"url":"https://example.com/checkout","message":"Pay","errorPath":true}');
    await waitForText(ask.locator('.host'), /^modelcontextprotocol\.io$/);
    const tabs = page.context().pages().length;
    await button(ask, 'Open modelcontextprotocol.io').click();
    const finished = button(ask, "I've Finished");
    await Promise.race([external.waitFor({ timeout: 30_000 }), finished.waitFor({ timeout: 30_000 })]);
    if (await external.isVisible()) await external.getByRole('button', { name: 'Open', exact: true }).click();
    await finished.waitFor();
    for (const opened of page.context().pages().slice(tabs)) await opened.close();
    await waitForText(ask, /Finish there, then the call to everything is made again\./);
    await shot('url-finish');
    await finished.click();
    await waitForText(ask.locator('.host'), /^example\.com$/);
    await waitForText(ask, /everything asks you to open a page on/);
    await button(ask, 'Decline').click();
    await waitCardState(card, 'done');
    await waitForText(card, /User declined to open the URL/);
    await waitIdle(chat);
  } finally {
    await model.close();
  }
}
