/** Keeps the last `capacity` lines, each cut to `maxLineLength` characters. */
export class LineRing {
  private readonly _lines: string[] = [];

  constructor(
    private readonly _capacity: number,
    private readonly _maxLineLength = 2000,
  ) {}

  push(line: string): void {
    this._lines.push(line.length > this._maxLineLength ? `${line.slice(0, this._maxLineLength)}…` : line);
    if (this._lines.length > this._capacity) this._lines.shift();
  }

  /** The last `count` lines (all by default), oldest first. */
  tail(count = this._capacity): string[] {
    return this._lines.slice(-count);
  }

  clear(): void {
    this._lines.length = 0;
  }
}
