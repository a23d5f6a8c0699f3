import { findNodeAtLocation, Node } from 'jsonc-parser';
import type { JsonPathSegment } from './jsonPath';

/** A 1-based line and column in a text file. */
export interface TextPosition {
  readonly line: number;
  readonly column: number;
}

/** Turns offsets and JSON paths of a parsed JSONC document into 1-based line/column positions. */
export class JsonLocator {
  private readonly _lineStarts: number[] = [0];

  constructor(
    text: string,
    private readonly _root: Node | undefined,
  ) {
    // Stryker disable next-line EqualityOperator: charCodeAt past the end is NaN, never a newline
    for (let i = 0; i < text.length; i++) {
      if (text.charCodeAt(i) === 10 /* \n */) {
        this._lineStarts.push(i + 1);
      }
    }
  }

  /** Position of a character offset (column counts UTF-16 code units, as editors do). */
  positionAt(offset: number): TextPosition {
    let low = 0;
    // Stryker disable next-line ArithmeticOperator: a bound past the end only adds steps that read undefined
    let high = this._lineStarts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this._lineStarts[mid] <= offset) {
        low = mid;
      } else {
        high = mid - 1;
      }
    }
    return { line: low + 1, column: offset - this._lineStarts[low] + 1 };
  }

  /** Position of the value at `path`, or undefined when the document has no such value. */
  valuePosition(path: readonly JsonPathSegment[]): TextPosition | undefined {
    const node = this._find(path);
    return node ? this.positionAt(node.offset) : undefined;
  }

  /** Position of the property key at `path` (the value's position for array items). */
  keyPosition(path: readonly JsonPathSegment[]): TextPosition | undefined {
    const node = this._find(path);
    if (!node) {
      return undefined;
    }
    const owner = node.parent?.type === 'property' ? node.parent : node;
    return this.positionAt(owner.offset);
  }

  private _find(path: readonly JsonPathSegment[]): Node | undefined {
    return this._root ? findNodeAtLocation(this._root, [...path]) : undefined;
  }
}
