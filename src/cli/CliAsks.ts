import * as readline from 'node:readline';
import { parseFieldInput, validateElicitationValues, type ElicitField } from '../core/requests/elicitationForm';
import type { ElicitFormAnswer, ElicitFormAsk, ElicitUrlAsk, IServerAskPrompter, SamplingChoice } from '../core/requests/types';

/**
 * A server's questions on the terminal: a form field by field (Enter keeps a default, "-" skips
 * an optional field, an empty answer to the first question or Ctrl-C cancels), a page to open
 * with its host first. Answers are read without echoing them anywhere else and are never kept.
 * Sampling is not offered by the CLI (it has no model), so it never asks that.
 */
export class CliAsks implements IServerAskPrompter {
  private _turn: Promise<void> = Promise.resolve();

  constructor(
    private readonly _input: NodeJS.ReadableStream = process.stdin,
    private readonly _output: NodeJS.WritableStream = process.stderr,
  ) {}

  async askForm(ask: ElicitFormAsk, signal: AbortSignal): Promise<ElicitFormAnswer> {
    const { form } = ask;
    return this._withTerminal(signal, async (question) => {
      this._say(`\n${ask.server} asks: ${form.message}`);
      const choice = await question('Answer it? [y]es, [n]o (decline), [c]ancel: ');
      if (choice === undefined || /^c/i.test(choice.trim())) return { action: 'cancel' };
      if (/^n/i.test(choice.trim())) return { action: 'decline' };
      const values: Record<string, unknown> = {};
      for (const field of form.fields) {
        for (;;) {
          const text = await question(`${describeField(field)}: `);
          if (text === undefined) return { action: 'cancel' };
          if (text.trim() === '-' && !field.required) break;
          const value = text.trim() === '' && field.default !== undefined ? field.default : parseFieldInput(field, text);
          const checked = validateElicitationValues({ message: form.message, fields: [field] }, { [field.name]: value });
          if (checked.ok) {
            if (value !== undefined) values[field.name] = value;
            break;
          }
          this._say(`  ${checked.error[field.name]}`);
        }
      }
      return { action: 'accept', values };
    });
  }

  async askUrl(ask: ElicitUrlAsk, signal: AbortSignal): Promise<'accept' | 'decline' | 'cancel'> {
    return this._withTerminal(signal, async (question) => {
      this._say(`\n${ask.server} ${ask.required ? 'needs you to open a page before the tool can run, on' : 'asks you to open a page on'} ${ask.host}\n  ${ask.message}\n  ${ask.url}`);
      const answer = await question(`Open ${ask.host} in the browser? [y/N] `);
      if (answer === undefined) return 'cancel';
      return /^y(es)?$/i.test(answer.trim()) ? 'accept' : 'decline';
    });
  }

  async askUrlFinished(ask: ElicitUrlAsk, signal: AbortSignal): Promise<'done' | 'cancel'> {
    return this._withTerminal(signal, async (question) => {
      const answer = await question(`Press Enter once you have finished on ${ask.host} (the call is then retried), or type c to cancel: `);
      return answer === undefined || /^c/i.test(answer.trim()) ? 'cancel' : 'done';
    });
  }

  async askSampling(): Promise<SamplingChoice> {
    return 'deny';
  }

  private _say(line: string): void {
    this._output.write(`${line}\n`);
  }

  /**
   * One terminal conversation; `question` resolves undefined once it is cancelled (Ctrl-C, the
   * input ended, the server gave up). Questions wait their turn: one server's form at a time.
   */
  private _withTerminal<T>(signal: AbortSignal, run: (question: (prompt: string) => Promise<string | undefined>) => Promise<T>): Promise<T> {
    const turn = this._turn.then(async () => {
      const terminal = (this._input as { isTTY?: boolean }).isTTY === true;
      const rl = readline.createInterface({ input: this._input, output: this._output, terminal, historySize: 0 });
      let cancelled = signal.aborted;
      const waiting = new Set<(answer: string | undefined) => void>();
      const cancel = () => {
        cancelled = true;
        for (const w of [...waiting]) w(undefined);
      };
      const onAbort = () => {
        this._output.write('\n(the server no longer waits for this answer)\n');
        cancel();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      rl.on('SIGINT', cancel);
      rl.on('close', cancel);
      const question = (prompt: string) =>
        new Promise<string | undefined>((resolve) => {
          if (cancelled) return resolve(undefined);
          const done = (answer: string | undefined) => {
            waiting.delete(done);
            resolve(answer);
          };
          waiting.add(done);
          rl.question(prompt, (answer) => done(answer));
        });
      try {
        return await run(question);
      } finally {
        signal.removeEventListener('abort', onAbort);
        rl.close();
      }
    });
    this._turn = turn.then(
      () => undefined,
      () => undefined,
    );
    return turn;
  }
}

function describeField(field: ElicitField): string {
  const parts: string[] = [];
  switch (field.kind) {
    case 'boolean':
      parts.push('y/n');
      break;
    case 'number':
      parts.push(field.integer ? 'whole number' : 'number');
      if (field.minimum !== undefined || field.maximum !== undefined) parts.push(`${field.minimum ?? '…'} to ${field.maximum ?? '…'}`);
      break;
    case 'enum':
      parts.push(field.options.map((o) => (o.title === o.value ? o.value : `${o.value}=${o.title}`)).join(' | '));
      break;
    case 'multi':
      parts.push(`comma-separated: ${field.options.map((o) => o.title).join(', ')}`);
      break;
    case 'string':
      if (field.format) parts.push(field.format);
      break;
  }
  if (field.default !== undefined) parts.push(`Enter for ${JSON.stringify(field.default)}`);
  if (!field.required) parts.push('- to skip');
  const hint = parts.length ? ` (${parts.join('; ')})` : '';
  return `  ${field.label}${field.required ? ' *' : ''}${field.description ? ` - ${field.description}` : ''}${hint}`;
}
