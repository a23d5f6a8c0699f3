import { describe, expect, it, vi } from 'vitest';
import { describeError, errorCauses, errorMessage, findCause, someCause } from '../../../src/core/base/errors';
import { Emitter, Event } from '../../../src/core/base/event';
import { formatByteSize } from '../../../src/core/base/formatByteSize';
import { Disposable, DisposableStore, disposeAll, MutableDisposable, toDisposable, type IDisposable } from '../../../src/core/base/lifecycle';

function counted(log: string[], name: string): IDisposable {
  return { dispose: () => void log.push(name) };
}

describe('Emitter', () => {
  it('calls listeners in order until they unsubscribe, and not after it is disposed', () => {
    const emitter = new Emitter<number>();
    const seen: string[] = [];
    expect(emitter.hasListeners).toBe(false);
    const a = emitter.event((n) => seen.push(`a${n}`));
    emitter.event((n) => seen.push(`b${n}`));
    expect(emitter.hasListeners).toBe(true);
    emitter.fire(1);
    a.dispose();
    a.dispose();
    emitter.fire(2);
    expect(seen).toEqual(['a1', 'b1', 'b2']);
    emitter.dispose();
    emitter.fire(3);
    expect(emitter.hasListeners).toBe(false);
    const late = emitter.event(() => seen.push('late'));
    emitter.fire(4);
    late.dispose();
    expect(seen).toEqual(['a1', 'b1', 'b2']);
  });

  it('keeps calling the other listeners when one throws, and reports it', () => {
    const errors: unknown[] = [];
    const emitter = new Emitter<string>((err) => errors.push(err));
    const seen: string[] = [];
    emitter.event(() => {
      throw new Error('listener bug');
    });
    emitter.event((v) => seen.push(v));
    emitter.fire('x');
    expect(seen).toEqual(['x']);
    expect(errors).toEqual([new Error('listener bug')]);
  });

  it('lets a listener unsubscribe another while it fires, without skipping this round', () => {
    const emitter = new Emitter<void>();
    const seen: string[] = [];
    let second: IDisposable | undefined;
    emitter.event(() => {
      seen.push('first');
      second?.dispose();
    });
    second = emitter.event(() => seen.push('second'));
    emitter.fire();
    emitter.fire();
    expect(seen).toEqual(['first', 'second', 'first']);
    expect(emitter.event).toBe(emitter.event);
  });

  it('has an event that never fires', () => {
    const subscription = Event.None(() => {
      throw new Error('never');
    });
    expect(() => subscription.dispose()).not.toThrow();
  });

  it('takes no listener once disposed', () => {
    const emitter = new Emitter<number>();
    emitter.dispose();
    const seen: number[] = [];
    const subscription = emitter.event((n) => seen.push(n));
    expect(emitter.hasListeners).toBe(false);
    emitter.fire(1);
    subscription.dispose();
    expect(seen).toEqual([]);
  });

  it('reports a throwing listener on the console unless told where', () => {
    const spy = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const emitter = new Emitter<void>();
      const failure = new Error('listener bug');
      emitter.event(() => {
        throw failure;
      });
      emitter.fire();
      expect(spy).toHaveBeenCalledWith('[mcp-harness] event listener failed:', failure);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('disposables', () => {
  it('runs a wrapped function once', () => {
    let runs = 0;
    const d = toDisposable(() => runs++);
    d.dispose();
    d.dispose();
    expect(runs).toBe(1);
  });

  it('disposes every item even when some throw, then throws what they threw', () => {
    const log: string[] = [];
    const boom = (m: string) => ({ dispose: () => {
      log.push(m);
      throw new Error(m);
    } });
    expect(() => disposeAll([counted(log, 'a'), boom('b'), counted(log, 'c')])).toThrow('b');
    expect(log).toEqual(['a', 'b', 'c']);
    let aggregate: unknown;
    try {
      disposeAll([boom('x'), boom('y')]);
    } catch (e) {
      aggregate = e;
    }
    expect(aggregate).toBeInstanceOf(AggregateError);
    expect((aggregate as AggregateError).errors.map((e: Error) => e.message)).toEqual(['x', 'y']);
    expect((aggregate as AggregateError).message).toBe('Errors while disposing');
    disposeAll([]);
  });

  it('a store releases its items together, stays usable after clear, and disposes late additions at once', () => {
    const log: string[] = [];
    const store = new DisposableStore();
    const item = counted(log, 'a');
    expect(store.add(item)).toBe(item);
    store.add(counted(log, 'b'));
    expect(log).toEqual([]);
    store.clear();
    expect(log).toEqual(['a', 'b']);
    store.add(counted(log, 'c'));
    expect(store.isDisposed).toBe(false);
    store.dispose();
    store.dispose();
    expect(store.isDisposed).toBe(true);
    expect(log).toEqual(['a', 'b', 'c']);
    store.add(counted(log, 'late'));
    expect(log).toEqual(['a', 'b', 'c', 'late']);
  });

  it('a mutable disposable holds one value, disposing the one it replaces, and none after it is disposed', () => {
    const log: string[] = [];
    const holder = new MutableDisposable<IDisposable>();
    const a = counted(log, 'a');
    holder.value = a;
    holder.value = a;
    expect(holder.value).toBe(a);
    expect(log).toEqual([]);
    holder.value = counted(log, 'b');
    expect(log).toEqual(['a']);
    holder.clear();
    expect(log).toEqual(['a', 'b']);
    expect(holder.value).toBeUndefined();
    holder.value = counted(log, 'c');
    holder.dispose();
    expect(log).toEqual(['a', 'b', 'c']);
    holder.value = counted(log, 'd');
    expect(holder.value).toBeUndefined();
    expect(log).toEqual(['a', 'b', 'c', 'd']);
  });

  it('a Disposable releases what it registered', () => {
    const log: string[] = [];
    class Owner extends Disposable {
      constructor() {
        super();
        this._register(counted(log, 'child'));
      }
    }
    new Owner().dispose();
    expect(log).toEqual(['child']);
  });
});

describe('errors', () => {
  const root = new Error('connect ECONNREFUSED 127.0.0.1:1');
  const fetchFailed = new TypeError('fetch failed', { cause: root });
  const wrapped = new Error('request to the server failed', { cause: fetchFailed });

  it('gives the message of anything thrown', () => {
    expect(errorMessage(new Error('boom'))).toBe('boom');
    expect(errorMessage(new RangeError(''))).toBe('RangeError');
    expect(errorMessage('plain')).toBe('plain');
    expect(errorMessage(undefined)).toBe('undefined');
  });

  it('walks the cause chain, stopping at a non-error and at a cycle', () => {
    expect([...errorCauses(wrapped)]).toEqual([wrapped, fetchFailed, root]);
    expect([...errorCauses('x')]).toEqual([]);
    expect([...errorCauses(new Error('a', { cause: 'text' }))].map((e) => e.message)).toEqual(['a']);
    const loop = new Error('loop');
    loop.cause = loop;
    expect([...errorCauses(loop)]).toHaveLength(8);
  });

  it('finds a cause by type or by test', () => {
    expect(findCause(wrapped, TypeError)).toBe(fetchFailed);
    expect(findCause(wrapped, RangeError)).toBeUndefined();
    expect(someCause(wrapped, (e) => e.message.startsWith('connect'))).toBe(true);
    expect(someCause(wrapped, (e) => e.message === 'nothing')).toBe(false);
  });

  it('describes an error with the reasons its causes add, once each', () => {
    expect(describeError(wrapped)).toBe('request to the server failed (fetch failed (connect ECONNREFUSED 127.0.0.1:1))');
    expect(describeError(new Error('x failed: timeout', { cause: new Error('timeout') }))).toBe('x failed: timeout');
    expect(describeError(new Error('', { cause: new Error('inner') }))).toBe('Error (inner)');
    expect(describeError(42)).toBe('42');
  });
});

describe('formatByteSize', () => {
  it('uses bytes, then KB and MB with at most one decimal, never 1024 KB', () => {
    expect([0, 1023, 1024, 1536, 3482, 1_048_575, 1_048_576, 1_600_000].map(formatByteSize)).toEqual(['0 B', '1023 B', '1 KB', '1.5 KB', '3.4 KB', '1 MB', '1 MB', '1.5 MB']);
  });
});
