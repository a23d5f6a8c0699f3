import { describe, expect, it } from 'vitest';
import {
  BuiltinArgumentError,
  defineBuiltin,
  describeBinary,
  looksBinary,
  optionalBoolean,
  optionalInteger,
  optionalString,
  optionalStringList,
  requiredString,
  textResult,
} from '../../../src/core/tools/builtin/toolKit';
import { WorkspacePathError } from '../../../src/core/tools/builtin/WorkspaceRoots';

/** A built-in tool whose run throws `failure` (or returns its arguments and signal as text). */
function toolThatThrows(failure?: unknown) {
  const seen: { args?: unknown; signal?: AbortSignal } = {};
  const tool = defineBuiltin({
    name: 'probe',
    title: 'Probe',
    description: 'A probe.',
    inputSchema: { type: 'object' },
    annotations: { readOnlyHint: true },
    async run(args, signal) {
      seen.args = args;
      seen.signal = signal;
      if (failure !== undefined) throw failure;
      return textResult('ran');
    },
  });
  return { tool, seen };
}

function fsError(code: string, message: string, extra: { path?: string; syscall?: string } = { syscall: 'open' }): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code, ...extra });
}

describe('textResult', () => {
  it('carries the text as one text block, with structured content only when given', () => {
    expect(textResult('hi')).toStrictEqual({ isError: false, text: 'hi', content: [{ type: 'text', text: 'hi' }] });
    expect(textResult('hi', { n: 1 })).toStrictEqual({ isError: false, text: 'hi', content: [{ type: 'text', text: 'hi' }], structuredContent: { n: 1 } });
  });
});

describe('argument readers', () => {
  it('name the argument that is missing or of the wrong type', () => {
    expect(requiredString({ p: 'x' }, 'p')).toBe('x');
    expect(requiredString({ p: '' }, 'p')).toBe('');
    expect(() => requiredString({}, 'p')).toThrow(new BuiltinArgumentError('argument "p" must be a string'));
    expect(optionalString({ s: null }, 's')).toBeUndefined();
    expect(optionalString({}, 's')).toBeUndefined();
    expect(optionalString({ s: 'v' }, 's')).toBe('v');
    expect(() => optionalString({ s: 3 }, 's')).toThrow(new BuiltinArgumentError('argument "s" must be a string'));
    expect(optionalBoolean({ b: false }, 'b')).toBe(false);
    expect(optionalBoolean({ b: null }, 'b')).toBeUndefined();
    expect(optionalBoolean({}, 'b')).toBeUndefined();
    expect(() => optionalBoolean({ b: 'true' }, 'b')).toThrow(new BuiltinArgumentError('argument "b" must be true or false'));
  });

  it('take integers from 1 up by default, any lower bound when set, and refuse what is not a safe integer', () => {
    expect(optionalInteger({ n: 1 }, 'n')).toBe(1);
    expect(() => optionalInteger({ n: 0 }, 'n')).toThrow('argument "n" must be an integer of at least 1');
    expect(optionalInteger({ n: 3 }, 'n', { min: 3 })).toBe(3);
    expect(() => optionalInteger({ n: 2 }, 'n', { min: 3 })).toThrow('argument "n" must be an integer of at least 3');
    expect(optionalInteger({ n: 3 }, 'n', { max: 3 })).toBe(3);
    expect(optionalInteger({ n: 2 }, 'n', { max: 3 })).toBe(2);
    for (const bad of [2 ** 53, Infinity, Number.NaN]) expect(() => optionalInteger({ n: bad }, 'n')).toThrow(BuiltinArgumentError);
  });

  it('take an empty list, and refuse a value that is neither a string nor a list', () => {
    expect(optionalStringList({ s: [] }, 's')).toEqual([]);
    expect(optionalStringList({ s: null }, 's')).toBeUndefined();
    expect(() => optionalStringList({ s: { a: 'b' } }, 's')).toThrow(BuiltinArgumentError);
  });
});

describe('defineBuiltin', () => {
  it('keeps the definition, puts the title among the annotations, and passes arguments and signal to run', async () => {
    const { tool, seen } = toolThatThrows();
    expect(tool).toMatchObject({ name: 'probe', description: 'A probe.', inputSchema: { type: 'object' }, annotations: { title: 'Probe', readOnlyHint: true } });
    expect(tool).not.toHaveProperty('title');
    expect(tool).not.toHaveProperty('run');
    const controller = new AbortController();
    expect(await tool.invoke({ a: 1 }, { signal: controller.signal })).toMatchObject({ isError: false, text: 'ran' });
    expect(seen).toEqual({ args: { a: 1 }, signal: controller.signal });
    await tool.invoke(undefined as unknown as Record<string, unknown>, {});
    expect(seen.args).toEqual({});
  });

  it('turns bad arguments and refused paths into error results prefixed with the tool name', async () => {
    expect(await toolThatThrows(new BuiltinArgumentError('argument "x" is bad')).tool.invoke({}, {})).toStrictEqual({
      isError: true,
      text: 'probe: argument "x" is bad',
      content: [{ type: 'text', text: 'probe: argument "x" is bad' }],
    });
    const outside = new WorkspacePathError('"../x" climbs out', 'outside_workspace');
    expect((await toolThatThrows(outside).tool.invoke({}, {})).text).toBe('probe: "../x" climbs out');
  });

  it.each([
    ['ENOENT', 'does not exist'],
    ['EISDIR', 'is a directory'],
    ['ENOTDIR', 'is not a directory'],
    ['EACCES', 'permission denied'],
    ['EPERM', 'operation not permitted'],
    ['EEXIST', 'already exists'],
  ])('says in words what a file-system %s error means, naming the path', async (code, words) => {
    const failure = fsError(code, `${code}: raw message`, { syscall: 'open', path: '/w/f.txt' });
    expect(await toolThatThrows(failure).tool.invoke({}, {})).toMatchObject({ isError: true, text: `probe: "/w/f.txt" ${words}` });
  });

  it('gives the system message for other file-system errors, and leaves out a path it was not told', async () => {
    expect((await toolThatThrows(fsError('ELOOP', 'too many symbolic links')).tool.invoke({}, {})).text).toBe('probe: too many symbolic links');
    expect((await toolThatThrows(fsError('ENOENT', 'gone')).tool.invoke({}, {})).text).toBe('probe: does not exist');
  });

  it('lets unexpected failures through as exceptions', async () => {
    await expect(toolThatThrows(new Error('bug')).tool.invoke({}, {})).rejects.toThrow('bug');
    // A code alone is not a file-system error: it needs the call that failed.
    await expect(toolThatThrows(fsError('ENOENT', 'no syscall', {})).tool.invoke({}, {})).rejects.toThrow('no syscall');
    await expect(toolThatThrows('a string').tool.invoke({}, {})).rejects.toBe('a string');
    // Nor is an object that only looks like one, or an error whose code is not a name.
    const lookalike = { code: 'ENOENT', syscall: 'open', message: 'fake' };
    await expect(toolThatThrows(lookalike).tool.invoke({}, {})).rejects.toBe(lookalike);
    await expect(toolThatThrows(Object.assign(new Error('numbered'), { code: 2, syscall: 'open' })).tool.invoke({}, {})).rejects.toThrow('numbered');
  });
});

describe('looksBinary', () => {
  const bytes = (...values: number[]) => Buffer.from(values);

  it('takes empty input, text with tabs, form feeds, escapes and line ends, and valid UTF-8 as text', () => {
    expect(looksBinary(Buffer.alloc(0))).toBe(false);
    for (const ws of [9, 10, 12, 13, 27]) expect(looksBinary(Buffer.alloc(40, ws)), `byte ${ws}`).toBe(false);
    expect(looksBinary(Buffer.from('héllo wörld ✓ 𝄞\r\n'.repeat(10)))).toBe(false);
    expect(looksBinary(Buffer.alloc(40, 0x20))).toBe(false);
  });

  it('takes any NUL byte as binary', () => {
    expect(looksBinary(Buffer.from('plain text\0'))).toBe(true);
  });

  it('takes more than four odd characters making over a tenth of the sample as binary', () => {
    expect(looksBinary(Buffer.alloc(5, 1))).toBe(true);
    expect(looksBinary(Buffer.alloc(5, 31))).toBe(true);
    expect(looksBinary(Buffer.alloc(4, 1))).toBe(false);
    // Invalid UTF-8 decodes as replacement characters, which count as odd.
    expect(looksBinary(Buffer.alloc(5, 0xff))).toBe(true);
    // Five odd characters in 50 is exactly a tenth: still text; in 49 it tips over.
    expect(looksBinary(Buffer.concat([Buffer.alloc(5, 1), Buffer.alloc(45, 0x61)]))).toBe(false);
    expect(looksBinary(Buffer.concat([Buffer.alloc(5, 1), Buffer.alloc(44, 0x61)]))).toBe(true);
    expect(looksBinary(bytes(0x61, 0xe2, 0x82))).toBe(false);
  });
});

describe('describeBinary', () => {
  it.each([
    ['PNG image', [0x89, 0x50, 0x4e, 0x47, 0x0d]],
    ['JPEG image', [0xff, 0xd8, 0xff, 0xe0]],
    ['GIF image', [0x47, 0x49, 0x46, 0x38, 0x39]],
    ['PDF document', [0x25, 0x50, 0x44, 0x46, 0x2d]],
    ['ZIP archive', [0x50, 0x4b, 0x03, 0x04]],
    ['gzip archive', [0x1f, 0x8b, 0x08]],
    ['ELF executable', [0x7f, 0x45, 0x4c, 0x46, 0x02]],
    ['WebAssembly module', [0x00, 0x61, 0x73, 0x6d, 0x01]],
  ])('recognizes a %s by its first bytes', (kind, head) => {
    expect(describeBinary('dir/f.bin', 2048, Buffer.from(head))).toBe(`dir/f.bin is a binary file (${kind}, 2 KB); its content is not shown.`);
  });

  it('calls anything else binary data, a signature cut short included', () => {
    expect(describeBinary('f', 3, Buffer.from([0x89, 0x50, 0x4e]))).toBe('f is a binary file (binary data, 3 B); its content is not shown.');
    expect(describeBinary('f', 0, Buffer.alloc(0))).toBe('f is a binary file (binary data, 0 B); its content is not shown.');
  });
});
