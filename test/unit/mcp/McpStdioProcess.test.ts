import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { McpSpawnError, McpStdioTransport } from '../../../src/core/mcp/McpStdioTransport';
import { McpTransportConnector } from '../../../src/core/mcp/McpTransportConnector';
import { isProcessAlive } from '../../../src/core/process/processGroup';
import { isRunning } from '../../support/running';

// Real child processes: what the transport does is start, read and end them.
const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

function connector(script: string, options: { maxMessageBytes?: number; shutdownGraceMs?: number; cwd?: string; command?: string } = {}) {
  const lines: string[] = [];
  const c = new McpTransportConnector({
    launch: { type: 'stdio', command: options.command ?? process.execPath, args: ['-e', script], env, headers: {}, cwd: options.cwd },
    maxMessageBytes: options.maxMessageBytes,
    shutdownGraceMs: options.shutdownGraceMs ?? 200,
    onStderrLine: (l) => lines.push(`err ${l}`),
    onStdoutNoise: (l) => lines.push(`out ${l}`),
  });
  const transport = c.create() as McpStdioTransport;
  const messages: JSONRPCMessage[] = [];
  const errors: string[] = [];
  let closed!: () => void;
  const whenClosed = new Promise<void>((resolve) => (closed = resolve));
  transport.onmessage = (m) => messages.push(m);
  transport.onerror = (e) => errors.push(e.message);
  transport.onclose = () => closed();
  closers.push(() => transport.close());
  return { c, transport, lines, messages, errors, whenClosed };
}

const response = JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} });

describe('McpStdioTransport with a real process', () => {
  it('passes JSON-RPC on, skips stray stdout lines, reads stderr by line, and tells how the process ended', async () => {
    const script = `
      process.stdout.write('Starting up...\\n\\n{"not":"json-rpc"}\\n' + ${JSON.stringify(response)} + '\\n' + 'x'.repeat(400) + '\\n');
      process.stderr.write('first\\r\\nlast words');
      setTimeout(() => process.exit(3), 50);`;
    const { c, transport, lines, messages, whenClosed } = connector(script);
    await transport.start();
    expect(c.pid(transport)).toBe(transport.pid);
    expect(isProcessAlive(transport.pid!)).toBe(true);
    await whenClosed;
    expect(messages).toEqual([JSON.parse(response)]);
    expect(lines).toEqual(['out Starting up...', 'out {"not":"json-rpc"}', `out ${'x'.repeat(300)}…`, 'err first', 'err last words']);
    expect(transport.exit).toEqual({ code: 3, signal: null });
    expect(c.describeEnd(transport, ['first', 'last words'])).toBe('the server process exited with code 3: last words');
    expect(c.describeEnd(transport, [])).toBe('the server process exited with code 3');
  });

  it('says which signal killed the process', async () => {
    const { c, transport, whenClosed } = connector('setInterval(() => {}, 1000)');
    await transport.start();
    process.kill(transport.pid!, 'SIGKILL');
    await whenClosed;
    expect(c.describeEnd(transport, [])).toBe('the server process was killed by SIGKILL');
  });

  it('ends the connection on a message over the size limit, and says so', async () => {
    const { c, transport, errors, whenClosed } = connector(`process.stdout.write('{"big":"' + 'y'.repeat(5000) + '"}\\n'); setInterval(() => {}, 1000)`, { maxMessageBytes: 1024 });
    await transport.start();
    await whenClosed;
    const failure = 'the server sent a message larger than maxMessageBytes (1024 bytes): a single message exceeded 1 KB on stdout; the connection was closed';
    expect(transport.failure).toBe(failure);
    expect(errors).toEqual([failure]);
    expect(c.describeEnd(transport, ['ignored'])).toBe(failure);
  });

  it('drops a stderr line too long to keep, and goes on reading', async () => {
    const { transport, lines, whenClosed } = connector(`process.stderr.write('before\\n' + 'z'.repeat(1100000) + '\\nafter\\n'); setTimeout(() => process.exit(0), 50)`);
    await transport.start();
    await whenClosed;
    expect(lines).toEqual(['err before', 'err [a stderr line longer than 1 MB was dropped]', 'err after']);
  });

  it('ends a server that ignores its closed stdin and SIGTERM with SIGKILL, and its own children with it', async () => {
    const script = `
      process.on('SIGTERM', () => {});
      const child = require('node:child_process').spawn(process.execPath, ['-e', 'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000)'], { stdio: 'ignore' });
      process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'child', params: { pid: child.pid } }) + '\\n');
      setInterval(() => {}, 1000);`;
    const { transport, messages, whenClosed } = connector(script, { shutdownGraceMs: 100 });
    await transport.start();
    await expect.poll(() => messages.length).toBe(1);
    const child = (messages[0] as unknown as { params: { pid: number } }).params.pid;
    await transport.close();
    await whenClosed;
    expect(transport.exit).toEqual({ code: null, signal: 'SIGKILL' });
    expect(isRunning(transport.pid!)).toBe(false);
    await expect.poll(() => isRunning(child)).toBe(false);
    await expect(transport.send({ jsonrpc: '2.0', id: 2, method: 'ping' })).rejects.toThrow('server process is not running');
  });

  it('lets a server that exits on a closed stdin go without signals', async () => {
    const { transport, whenClosed } = connector(`process.stdin.on('end', () => process.exit(0)); process.stdin.resume()`, { shutdownGraceMs: 5000 });
    await transport.start();
    await transport.close();
    await whenClosed;
    expect(transport.exit).toEqual({ code: 0, signal: null });
  });

  it('refuses to start twice, and explains a command or folder that is not there', async () => {
    const { transport } = connector('setInterval(() => {}, 1000)');
    await transport.start();
    await expect(transport.start()).rejects.toThrow('McpStdioTransport already started');
    const missing = connector('', { command: 'no-such-command-mcp-harness' }).transport;
    await expect(missing.start()).rejects.toMatchObject({ name: 'McpSpawnError', code: 'ENOENT', message: 'command not found: "no-such-command-mcp-harness" (is it installed and on PATH?)' });
    const nowhere = path.join(os.tmpdir(), 'mcp-harness-no-such-dir', String(process.pid));
    const badCwd = connector('', { cwd: nowhere }).transport;
    await expect(badCwd.start()).rejects.toEqual(new McpSpawnError(`working directory does not exist: ${nowhere}`, 'ENOENT'));
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-harness-cwd-')), 'file');
    fs.writeFileSync(file, '');
    await expect(connector('', { cwd: file }).transport.start()).rejects.toThrow(`working directory does not exist: ${file}`);
    const denied = connector('', { command: file }).transport;
    await expect(denied.start()).rejects.toMatchObject({ code: 'EACCES', message: expect.stringMatching(/^could not start ".*file": spawn .* EACCES$/) });
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });

  it('closes without a process when it never started', async () => {
    const { transport, whenClosed } = connector('');
    await transport.close();
    await whenClosed;
    expect(transport.pid).toBeUndefined();
  });
});

describe('McpStdioTransport, the end of a process', () => {
  it('delivers what a server wrote just before exiting, then closes once', async () => {
    const script = `process.stdout.write(${JSON.stringify(response)} + '\\n   \\n', () => process.exit(0));`;
    const { transport, messages, lines, whenClosed } = connector(script);
    const events: string[] = [];
    transport.onmessage = (m) => {
      messages.push(m);
      events.push('message');
    };
    let closes = 0;
    transport.onclose = () => {
      closes++;
      events.push('close');
    };
    await transport.start();
    await expect.poll(() => closes).toBe(1);
    await transport.close();
    expect(closes).toBe(1);
    expect(events).toEqual(['message', 'close']);
    expect(lines).toEqual([]);
    void whenClosed;
  });

  it('closes even when a child of the server keeps its output open, and ends that child', async () => {
    const script = `
      const child = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: ['ignore', 'inherit', 'ignore'] });
      process.stderr.write(String(child.pid) + '\\n');
      setTimeout(() => process.exit(0), 100);`;
    const { transport, lines, whenClosed } = connector(script, { shutdownGraceMs: 200 });
    await transport.start();
    await whenClosed;
    const child = Number(lines[0].slice('err '.length));
    await expect.poll(() => isRunning(child)).toBe(false);
  });

  it('ends a child the server started outside its process group', async () => {
    const script = `
      const child = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore' });
      process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'child', params: { pid: child.pid } }) + '\\n');
      setInterval(() => {}, 1000);`;
    const { transport, messages } = connector(script, { shutdownGraceMs: 300 });
    await transport.start();
    await expect.poll(() => messages.length).toBe(1);
    const child = (messages[0] as unknown as { params: { pid: number } }).params.pid;
    await transport.close();
    await expect.poll(() => isRunning(child)).toBe(false);
  });

  it('runs in the working directory it was given, and refuses to send before it started', async () => {
    const dir = fs.realpathSync(os.tmpdir());
    const { transport, lines, whenClosed } = connector(`process.stderr.write(process.cwd() + '\\n'); process.exit(0)`, { cwd: dir });
    await expect(transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' })).rejects.toThrow('server process is not running');
    await transport.start();
    await whenClosed;
    expect(lines).toEqual([`err ${dir}`]);
  });
});

describe('McpStdioTransport shutdown steps', () => {
  it('ends a server that ignores its closed stdin with SIGTERM, before any SIGKILL', async () => {
    const { transport, whenClosed } = connector(`process.stdin.on('end', () => {}); process.stdin.resume(); setInterval(() => {}, 1000)`, { shutdownGraceMs: 300 });
    await transport.start();
    await transport.close();
    await whenClosed;
    expect(transport.exit).toEqual({ code: null, signal: 'SIGTERM' });
  });

  it('tells of its close once, whether it closed or the process exited first', async () => {
    const { transport } = connector(`process.stdin.on('end', () => process.exit(0)); process.stdin.resume()`, { shutdownGraceMs: 2000 });
    let closes = 0;
    transport.onclose = () => closes++;
    await transport.start();
    await transport.close();
    await new Promise((r) => setTimeout(r, 400));
    expect(closes).toBe(1);
  });

  it('delivers a large last message before the close, however the exit and the output interleave', async () => {
    const { transport, whenClosed } = connector(`process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: 7, result: { blob: 'b'.repeat(2 * 1024 * 1024) } }) + '\\n', () => process.exit(0))`);
    const events: string[] = [];
    transport.onmessage = () => events.push('message');
    transport.onclose = () => events.push('close');
    await transport.start();
    await expect.poll(() => events.includes('close'), { timeout: 5000 }).toBe(true);
    expect(events).toEqual(['message', 'close']);
    void whenClosed;
  });

  it('shrugs off writing to a server that closed its input', async () => {
    const { transport } = connector(`process.stdin.destroy(); setInterval(() => {}, 1000)`);
    await transport.start();
    await new Promise((r) => setTimeout(r, 200));
    await Promise.race([transport.send({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'p'.repeat(200_000) } }).catch(() => undefined), new Promise((r) => setTimeout(r, 300))]);
    await new Promise((r) => setTimeout(r, 100));
    expect(transport.exit).toBeUndefined();
  });
});
