/** Something that holds a resource and can release it. Calling `dispose()` twice is safe. */
export interface IDisposable {
  dispose(): void;
}

/** Wraps a function as a disposable that runs it once. */
export function toDisposable(fn: () => void): IDisposable {
  let done = false;
  return {
    dispose() {
      if (!done) {
        done = true;
        fn();
      }
    },
  };
}

/** Disposes every item, collecting errors so that one failure does not skip the rest. */
export function disposeAll(items: Iterable<IDisposable>): void {
  const errors: unknown[] = [];
  for (const item of items) {
    try {
      item.dispose();
    } catch (e) {
      errors.push(e);
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 0) throw new AggregateError(errors, 'Errors while disposing');
}

/** A set of disposables released together. Adding to a disposed store disposes the item at once. */
export class DisposableStore implements IDisposable {
  private readonly _items = new Set<IDisposable>();
  private _disposed = false;

  get isDisposed(): boolean {
    return this._disposed;
  }

  add<T extends IDisposable>(item: T): T {
    if (this._disposed) {
      item.dispose();
    } else {
      this._items.add(item);
    }
    return item;
  }

  /** Disposes and forgets every item, keeping the store usable. */
  clear(): void {
    const items = [...this._items];
    this._items.clear();
    disposeAll(items);
  }

  dispose(): void {
    this._disposed = true;
    this.clear();
  }
}

/** Holds at most one disposable; setting a new value disposes the old one. */
export class MutableDisposable<T extends IDisposable> implements IDisposable {
  private _value: T | undefined;
  private _disposed = false;

  get value(): T | undefined {
    return this._value;
  }

  set value(value: T | undefined) {
    if (this._value === value) return;
    this._value?.dispose();
    this._value = this._disposed ? undefined : value;
    if (this._disposed) value?.dispose();
  }

  clear(): void {
    this.value = undefined;
  }

  dispose(): void {
    this._disposed = true;
    this.clear();
  }
}

/** Base class for resource owners: `_register` ties a child's lifetime to this object. */
export abstract class Disposable implements IDisposable {
  protected readonly _store = new DisposableStore();

  protected _register<T extends IDisposable>(item: T): T {
    return this._store.add(item);
  }

  dispose(): void {
    this._store.dispose();
  }
}
