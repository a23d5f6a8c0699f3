import { IDisposable, toDisposable } from './lifecycle';

/** Subscribe with a listener; dispose the result to unsubscribe. */
export type Event<T> = (listener: (e: T) => void) => IDisposable;

export namespace Event {
  /** An event that never fires. */
  export const None: Event<never> = () => toDisposable(() => undefined);
}

/**
 * Owns an event. Listeners run synchronously in registration order; a throwing listener is
 * reported through `onListenerError` and does not stop the others.
 */
export class Emitter<T> implements IDisposable {
  private _listeners: Array<(e: T) => void> = [];
  private _disposed = false;
  private _event: Event<T> | undefined;

  constructor(private readonly _onListenerError: (err: unknown) => void = defaultListenerError) {}

  get event(): Event<T> {
    this._event ??= (listener) => {
      if (this._disposed) return toDisposable(() => undefined);
      this._listeners.push(listener);
      return toDisposable(() => {
        const i = this._listeners.indexOf(listener);
        // Stryker disable next-line ConditionalExpression: a listener is missing only after dispose, when the list is empty for good
        if (i >= 0) this._listeners.splice(i, 1);
      });
    };
    return this._event;
  }

  get hasListeners(): boolean {
    return this._listeners.length > 0;
  }

  fire(value: T): void {
    // After dispose there are no listeners left to call.
    for (const listener of [...this._listeners]) {
      try {
        listener(value);
      } catch (err) {
        this._onListenerError(err);
      }
    }
  }

  dispose(): void {
    this._disposed = true;
    this._listeners = [];
  }
}

function defaultListenerError(err: unknown): void {
  // A listener's bug must not break the emitter's owner; surface it where a developer will see it.
  console.error('[mcp-harness] event listener failed:', err);
}
