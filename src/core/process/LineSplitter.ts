import { formatByteSize } from '../base/formatByteSize';

/** Thrown by {@link LineSplitter} when one line grows past its limit. */
export class LineTooLongError extends Error {
  constructor(readonly limitBytes: number) {
    super(`a single message exceeded ${formatByteSize(limitBytes)}`);
    this.name = 'LineTooLongError';
  }
}

/**
 * Splits a byte stream into lines without re-copying the pending tail on every chunk
 * (a multi-megabyte message arrives in many small chunks).
 */
export class LineSplitter {
  private _pending: Buffer[] = [];
  private _pendingBytes = 0;
  /** The rest of a line dropped for its length is still arriving: skip up to its newline. */
  private _skipping = false;

  constructor(private readonly _maxLineBytes: number) {}

  /**
   * Feeds a chunk; calls `onLine` for each complete line (without `\n` or a trailing `\r`). A line
   * over the limit throws {@link LineTooLongError}; with `onTooLong`, it is dropped whole instead
   * (through its newline, however many chunks that takes), `onTooLong` is called once, and the
   * lines after it go on.
   */
  push(chunk: Buffer, onLine: (line: string) => void, onTooLong?: () => void): void {
    let start = 0;
    let nl = chunk.indexOf(10);
    while (nl !== -1) {
      const piece = chunk.subarray(start, nl);
      start = nl + 1;
      nl = chunk.indexOf(10, start);
      if (this._skipping) {
        this._skipping = false;
        continue;
      }
      // A line that ends in this chunk counts as much as one still pending.
      if (this._pendingBytes + piece.length > this._maxLineBytes) {
        this._tooLong(onTooLong);
        continue;
      }
      let line: Buffer = piece;
      // Stryker disable next-line ConditionalExpression,EqualityOperator: only spares a copy: with nothing pending the concatenation is the piece itself
      if (this._pending.length > 0) {
        this._pending.push(piece);
        line = Buffer.concat(this._pending, this._pendingBytes + piece.length);
        this._pending = [];
        this._pendingBytes = 0;
      }
      const end = line[line.length - 1] === 13 ? line.length - 1 : line.length;
      onLine(line.toString('utf8', 0, end));
    }
    if (start < chunk.length && !this._skipping) {
      const rest = chunk.subarray(start);
      this._pendingBytes += rest.length;
      if (this._pendingBytes > this._maxLineBytes) {
        this._tooLong(onTooLong);
        this._skipping = true;
        return;
      }
      this._pending.push(rest);
    }
  }

  private _tooLong(onTooLong: (() => void) | undefined): void {
    this.clear();
    if (!onTooLong) throw new LineTooLongError(this._maxLineBytes);
    onTooLong();
  }

  /** Returns what is left without a newline, and forgets it. */
  flush(): string | undefined {
    if (this._pending.length === 0) return undefined;
    const rest = Buffer.concat(this._pending, this._pendingBytes).toString('utf8');
    this.clear();
    return rest;
  }

  clear(): void {
    this._pending = [];
    this._pendingBytes = 0;
  }
}
