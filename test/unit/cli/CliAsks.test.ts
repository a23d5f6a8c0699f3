import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { CliAsks } from '../../../src/cli/CliAsks';
import { parseElicitationForm } from '../../../src/core/requests/elicitationForm';

const form = parseElicitationForm('Who are you?', {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name' },
    age: { type: 'integer', title: 'Age', minimum: 1, maximum: 120 },
    color: { type: 'string', title: 'Color', oneOf: [{ const: 'r', title: 'Red' }, { const: 'g', title: 'Green' }], default: 'g' },
    note: { type: 'string', title: 'Note' },
  },
  required: ['name', 'age'],
});
if (!form.ok) throw new Error(form.error);

/** A terminal whose person answers each prompt as it appears. */
function terminal() {
  const input = new PassThrough();
  const output = new PassThrough();
  let text = '';
  output.on('data', (c) => (text += c));
  return {
    input,
    output,
    get text() {
      return text;
    },
    async answer(prompt: string, line: string) {
      await vi.waitFor(() => expect(text.split(prompt).length - 1).toBeGreaterThan(0));
      text = text.replace(prompt, '');
      input.write(`${line}\n`);
    },
  };
}

describe('CliAsks', () => {
  it('asks field by field, says what is wrong, keeps defaults and skips optional fields', async () => {
    const t = terminal();
    const asks = new CliAsks(t.input, t.output);
    const answer = asks.askForm({ id: '1', server: 'srv', form: form.value }, new AbortController().signal);
    await t.answer('Answer it?', 'y');
    await t.answer('Name *', 'Ada');
    await t.answer('Age *', '500');
    await vi.waitFor(() => expect(t.text).toContain('Age must be at most 120'));
    await t.answer('Age *', '36');
    await t.answer('Color', '');
    await t.answer('Note', '-');
    expect(await answer).toEqual({ action: 'accept', values: { name: 'Ada', age: 36, color: 'g' } });
    expect(t.text).toContain('srv asks: Who are you?');
  });

  it('declines, and cancels when the server gives up', async () => {
    const t = terminal();
    const asks = new CliAsks(t.input, t.output);
    const declined = asks.askForm({ id: '1', server: 'srv', form: form.value }, new AbortController().signal);
    await t.answer('Answer it?', 'n');
    expect(await declined).toEqual({ action: 'decline' });
    const stop = new AbortController();
    const cancelled = asks.askForm({ id: '2', server: 'srv', form: form.value }, stop.signal);
    await vi.waitFor(() => expect(t.text).toContain('Answer it?'));
    stop.abort();
    expect(await cancelled).toEqual({ action: 'cancel' });
    expect(t.text).toContain('no longer waits');
  });

  it('names the host before opening a page', async () => {
    const t = terminal();
    const asks = new CliAsks(t.input, t.output);
    const answer = asks.askUrl({ id: '1', server: 'srv', message: 'Sign in', url: 'https://login.example.com/x', host: 'login.example.com' }, new AbortController().signal);
    await t.answer('Open login.example.com in the browser?', 'y');
    expect(await answer).toBe('accept');
    expect(t.text).toContain('srv asks you to open a page on login.example.com');
  });

  it('asks for a page a call needs, then waits for Enter before the call is retried', async () => {
    const t = terminal();
    const asks = new CliAsks(t.input, t.output);
    const ask = { id: 'p', server: 'shop', message: 'Confirm the purchase', url: 'https://pay.example.com/go', host: 'pay.example.com', required: true };
    const open = asks.askUrl(ask, new AbortController().signal);
    await t.answer('Open pay.example.com in the browser?', 'y');
    expect(await open).toBe('accept');
    expect(t.text).toContain('shop needs you to open a page before the tool can run, on pay.example.com');
    const finished = asks.askUrlFinished(ask, new AbortController().signal);
    await t.answer('Press Enter once you have finished on pay.example.com', '');
    expect(await finished).toBe('done');
    const cancelled = asks.askUrlFinished(ask, new AbortController().signal);
    await t.answer('Press Enter once you have finished on pay.example.com', 'c');
    expect(await cancelled).toBe('cancel');
  });
});
