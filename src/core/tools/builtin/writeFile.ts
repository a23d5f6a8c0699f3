import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { formatByteSize } from '../formatToolResult';
import type { BuiltinTool } from '../types';
import { defineBuiltin, requiredString, textResult } from './toolKit';
import type { WorkspaceRoots } from './WorkspaceRoots';

/** `write_file`: creates or replaces a text file (folders created as needed). */
export function createWriteFileTool(roots: WorkspaceRoots): BuiltinTool {
  return defineBuiltin({
    name: 'write_file',
    title: 'Write File',
    description: 'Create a text file in the workspace, or replace its whole content. Missing parent folders are created. Prefer edit_file to change part of a file.',
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File path, relative to the workspace root or absolute inside it.' },
        content: { type: 'string', description: 'The complete new content.' },
      },
      required: ['path', 'content'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    async run(args) {
      const given = requiredString(args, 'path');
      const content = requiredString(args, 'content');
      const file = await roots.resolveForWrite(given);
      const existed = await fs.stat(file.absolute).then(
        (s) => s.isFile(),
        () => false,
      );
      await fs.mkdir(path.dirname(file.absolute), { recursive: true });
      await fs.writeFile(file.absolute, content, 'utf8');
      const size = Buffer.byteLength(content, 'utf8');
      return textResult(`${existed ? 'Replaced' : 'Created'} ${file.relative} (${formatByteSize(size)}).`, {
        path: file.relative,
        created: !existed,
        bytes: size,
      });
    },
  });
}
