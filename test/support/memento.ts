import type { IChatMemento } from '../../src/core/chat';

/** Workspace state as VS Code keeps it, in memory: values copied in and out, `undefined` removes a key. */
export class MemoryMemento implements IChatMemento {
  readonly values = new Map<string, unknown>();
  get<T>(key: string): T | undefined {
    return structuredClone(this.values.get(key)) as T | undefined;
  }
  async update(key: string, value: unknown): Promise<void> {
    if (value === undefined) this.values.delete(key);
    else this.values.set(key, structuredClone(value));
  }
}
