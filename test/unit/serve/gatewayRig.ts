import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { AuditStart, IAuditSink } from '../../../src/core/permissions/AuditLog';
import { HarnessMcpServer, type HarnessMcpServerOptions } from '../../../src/core/serve/HarnessMcpServer';
import { memoryHarness, type MemoryServerSpec } from '../../support/memoryHarness';
import { closers } from './listenerRig';

export class RecordingAudit implements IAuditSink {
  readonly started: AuditStart[] = [];
  readonly ended: string[] = [];
  readonly deniedCalls: string[] = [];
  start(entry: AuditStart): string {
    this.started.push(entry);
    return String(this.started.length);
  }
  end(id: string, result: { outcome: string }): void {
    this.ended.push(`${id} ${result.outcome}`);
  }
  denied(entry: { tool: string }): void {
    this.deniedCalls.push(entry.tool);
  }
}

const specs: Record<string, MemoryServerSpec> = {
  docs: { content: true, tools: { search: 'found it' } },
  ui: { tools: { show: 'shown' }, appOnlyTools: ['refresh_view'] },
  secret: { content: true, tools: { peek: 'secret data' } },
};

/** A harness with in-memory servers, served by a HarnessMcpServer to a real SDK client, all in this process. */
export async function serve(options: HarnessMcpServerOptions = { gateway: true }, entries: Record<string, object> = { docs: { command: 'docs' }, secret: { command: 'secret' } }) {
  const rig = memoryHarness(entries, specs);
  closers.push(() => rig.harness.dispose());
  await rig.harness.start();
  const audit = new RecordingAudit();
  const logs: string[] = [];
  const server = new HarnessMcpServer(rig.harness, { audit, log: (m) => logs.push(m), ...options });
  closers.push(() => server.dispose());
  const connectClient = async (name = 'test-client') => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const session = await server.connect(serverSide, { transport: 'stdio' });
    const client = new Client({ name, version: '2.1.0' });
    await client.connect(clientSide);
    closers.push(() => client.close());
    return { client, session };
  };
  return { ...rig, server, audit, logs, connectClient };
}

