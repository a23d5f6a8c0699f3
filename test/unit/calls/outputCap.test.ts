import { describe, expect, it } from 'vitest';
import { MAX_RESULT_SIZE_HINT_CEILING, outputCapFor } from '../../../src/core/calls/outputCap';
import { DEFAULT_MAX_OUTPUT_CHARS } from '../../../src/core/tools/formatToolResult';
import type { HarnessTool } from '../../../src/core/tools/types';

const tool = (extra: Partial<HarnessTool> = {}): HarnessTool => ({ name: 'mcp__gh__get_file', server: 'gh', originalName: 'get_file', description: '', inputSchema: { type: 'object' }, pin: 'p', ...extra });

describe('outputCapFor', () => {
  it('uses the cap for every tool, or the default', () => {
    expect(outputCapFor(tool(), {})).toBe(DEFAULT_MAX_OUTPUT_CHARS);
    expect(outputCapFor(tool(), { maxOutputChars: 5000 })).toBe(5000);
    expect(outputCapFor(tool(), { maxOutputChars: Number.NaN })).toBe(DEFAULT_MAX_OUTPUT_CHARS);
  });

  it("honours the server's hint, up to the ceiling, over the cap for every tool", () => {
    expect(outputCapFor(tool({ maxResultSizeChars: 300_000 }), { maxOutputChars: 5000 })).toBe(300_000);
    expect(outputCapFor(tool({ maxResultSizeChars: 2000 }), { maxOutputChars: 5000 })).toBe(2000);
    expect(outputCapFor(tool({ maxResultSizeChars: 10_000_000 }), {})).toBe(MAX_RESULT_SIZE_HINT_CEILING);
  });

  it("lets the person's per-tool setting win over the hint, by the first matching pattern", () => {
    const settings = { maxOutputChars: 5000, maxOutputCharsPerTool: { mcp__other__get_file: 1, mcp__gh__get_file: 700, 'mcp__gh__*': 900 } };
    expect(outputCapFor(tool({ maxResultSizeChars: 300_000 }), settings)).toBe(700);
    expect(outputCapFor(tool({ originalName: 'list' }), settings)).toBe(900);
    // A built-in is matched by its own name; a bad value is skipped, not used.
    const builtin = tool({ name: 'read_file', server: undefined, originalName: 'read_file' });
    expect(outputCapFor(builtin, { maxOutputCharsPerTool: { read_file: -3, 'read_*': 1234 } })).toBe(1234);
  });
});
