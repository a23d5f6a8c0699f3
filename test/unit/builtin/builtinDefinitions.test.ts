import { describe, expect, it } from 'vitest';
import { BUILTIN_TOOL_NAMES, createBuiltinTools } from '../../../src/core/tools/builtin';
import type { BuiltinTool } from '../../../src/core/tools/types';
import { tempWorkspace } from '../../support/workspace';

/** Any text at all: what the model reads about an argument must not be blank. */
const words = expect.stringMatching(/\w/);

function toolsFor(roots: string[], runCommand?: Parameters<typeof createBuiltinTools>[0]['runCommand']): Map<string, BuiltinTool> {
  return new Map(createBuiltinTools({ roots, runCommand }).map((t) => [t.name, t]));
}

describe('createBuiltinTools', () => {
  it('makes one tool per listed name, in listing order', () => {
    expect(createBuiltinTools({ roots: ['/w'] }).map((t) => t.name)).toEqual([...BUILTIN_TOOL_NAMES]);
    expect(BUILTIN_TOOL_NAMES).toEqual(['read_file', 'list_directory', 'glob_search', 'grep_search', 'write_file', 'edit_file', 'run_command']);
  });

  it('confines every tool to the same roots, relative paths going to the first', async () => {
    const top = tempWorkspace({ 'one/a.txt': 'one\n', 'two/b.txt': 'two\n' });
    const tools = toolsFor([top.at('one'), top.at('two')]);
    expect((await tools.get('read_file')!.invoke({ path: 'a.txt' }, {})).text).toBe('one');
    expect((await tools.get('read_file')!.invoke({ path: top.at('two/b.txt') }, {})).text).toBe('two');
    expect((await tools.get('write_file')!.invoke({ path: top.at('two/c.txt'), content: 'c' }, {})).text).toBe('Created c.txt (1 B).');
    expect((await tools.get('edit_file')!.invoke({ path: top.at('two/c.txt'), old_string: 'c', new_string: 'd' }, {})).isError).toBe(false);
    expect((await tools.get('run_command')!.invoke({ command: 'cat a.txt' }, {})).text).toBe('exit code 0\none');
    expect((await tools.get('read_file')!.invoke({ path: top.at('elsewhere.txt') }, {})).isError).toBe(true);
  });

  it('hands its run_command options to run_command', () => {
    expect(toolsFor(['/w'], { maxOutputBytes: 2048, defaultTimeoutMs: 5000 }).get('run_command')!.description).toMatch(/capped at 2 KB:.*default 5 s/);
  });
});

describe('the file and command tools as the model sees them', () => {
  // Made inside each test, so that mutation testing sees which test reads which definition.
  const definition = (name: string) => toolsFor(['/w']).get(name)!;

  it('read_file: read-only, a path and an optional line range and byte cap', () => {
    const tool = definition('read_file');
    expect(tool.annotations).toEqual({ title: 'Read File', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    expect(tool.description).toBe(
      'Read a text file in the workspace. Optionally a range of lines (1-based, inclusive). Output is capped ' +
        '(default 96 KB); a note says where it stopped. Binary files are summarized, not shown.',
    );
    expect(tool.inputSchema).toEqual({
      type: 'object',
      properties: {
        path: { type: 'string', description: words },
        start_line: { type: 'integer', minimum: 1, description: words },
        end_line: { type: 'integer', minimum: 1, description: words },
        max_bytes: { type: 'integer', minimum: 1, maximum: 4 * 1024 * 1024, description: words },
      },
      required: ['path'],
      additionalProperties: false,
    });
  });

  it('write_file: destructive but idempotent, a path and the whole content', () => {
    const tool = definition('write_file');
    expect(tool.annotations).toEqual({ title: 'Write File', readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false });
    expect(tool.description).toBe(
      'Create a text file in the workspace, or replace its whole content. Missing parent folders are created. Prefer edit_file to change part of a file.',
    );
    expect(tool.inputSchema).toEqual({
      type: 'object',
      properties: { path: { type: 'string', description: words }, content: { type: 'string', description: words } },
      required: ['path', 'content'],
      additionalProperties: false,
    });
  });

  it('edit_file: destructive and not idempotent, an exact string to replace once or everywhere', () => {
    const tool = definition('edit_file');
    expect(tool.annotations).toEqual({ title: 'Edit File', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false });
    expect(tool.description).toBe(
      'Replace an exact string in a text file of the workspace. old_string must occur exactly once (include surrounding ' +
        'lines to make it unique) unless replace_all is true. Returns a unified diff of the change.',
    );
    expect(tool.inputSchema).toEqual({
      type: 'object',
      properties: {
        path: { type: 'string', description: words },
        old_string: { type: 'string', description: words },
        new_string: { type: 'string', description: words },
        replace_all: { type: 'boolean', description: words },
      },
      required: ['path', 'old_string', 'new_string'],
      additionalProperties: false,
    });
  });

  it('run_command: reaches beyond the workspace, a command with an optional folder and time limit', () => {
    const tool = definition('run_command');
    expect(tool.description).toBe(
      'Run a shell command in a workspace folder and return its exit code and combined output (capped at 64 KB: ' +
        'the start and the end are kept). The command and every process it starts are ended after timeout_ms (default 60 s) or when the call is cancelled.',
    );
    expect(tool.annotations).toEqual({ title: 'Run Shell Command', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true });
    expect(tool.inputSchema).toEqual({
      type: 'object',
      properties: {
        command: { type: 'string', description: words },
        cwd: { type: 'string', description: words },
        timeout_ms: { type: 'integer', minimum: 1, maximum: 600_000, description: words },
      },
      required: ['command'],
      additionalProperties: false,
    });
  });
});
