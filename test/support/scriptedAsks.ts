import type { ElicitFormAnswer, ElicitFormAsk, ElicitUrlAsk, IServerAskPrompter, SamplingAsk, SamplingChoice, SamplingOutcome } from '../../src/core/requests/types';

type Answer<A, R> = (ask: A, signal: AbortSignal) => R | Promise<R>;

/**
 * A person answering a server's questions from a script: each kind takes the next answer queued
 * for it (or waits for the signal when none is), and every question and outcome is recorded.
 */
export class ScriptedAsks implements IServerAskPrompter {
  readonly forms: ElicitFormAsk[] = [];
  readonly urls: ElicitUrlAsk[] = [];
  readonly samplings: SamplingAsk[] = [];
  readonly outcomes: SamplingOutcome[] = [];
  readonly aborted: string[] = [];
  formAnswers: Array<Answer<ElicitFormAsk, ElicitFormAnswer>> = [];
  urlAnswers: Array<Answer<ElicitUrlAsk, 'accept' | 'decline' | 'cancel'>> = [];
  samplingAnswers: Array<Answer<SamplingAsk, SamplingChoice>> = [];
  /** Answers to "have you finished on the page?" (a call that needs a page retries on "done"). */
  finishAnswers: Array<Answer<ElicitUrlAsk, 'done' | 'cancel'>> = [];
  readonly finished: ElicitUrlAsk[] = [];

  askForm(ask: ElicitFormAsk, signal: AbortSignal): Promise<ElicitFormAnswer> {
    this.forms.push(ask);
    return this._next(this.formAnswers, ask, signal, { action: 'cancel' });
  }
  askUrl(ask: ElicitUrlAsk, signal: AbortSignal): Promise<'accept' | 'decline' | 'cancel'> {
    this.urls.push(ask);
    return this._next(this.urlAnswers, ask, signal, 'cancel');
  }
  askUrlFinished(ask: ElicitUrlAsk, signal: AbortSignal): Promise<'done' | 'cancel'> {
    this.finished.push(ask);
    return this._next(this.finishAnswers, ask, signal, 'cancel');
  }
  askSampling(ask: SamplingAsk, signal: AbortSignal): Promise<SamplingChoice> {
    this.samplings.push(ask);
    return this._next(this.samplingAnswers, ask, signal, 'deny');
  }
  showSamplingOutcome(_ask: SamplingAsk, outcome: SamplingOutcome): void {
    this.outcomes.push(outcome);
  }

  private async _next<A extends { id: string }, R>(queue: Array<Answer<A, R>>, ask: A, signal: AbortSignal, onAbort: R): Promise<R> {
    const answer = queue.shift();
    if (answer) return answer(ask, signal);
    // Nobody answers: the question stays until the server or the host gives up on it.
    return new Promise((resolve) => {
      const done = () => {
        this.aborted.push(ask.id);
        resolve(onAbort);
      };
      if (signal.aborted) done();
      else signal.addEventListener('abort', done, { once: true });
    });
  }
}
