import { InMemoryTransport } from '@modelcontextprotocol/client';
import { Server } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { afterEach, describe, expect, it } from 'vitest';
import { McpClientTasks } from '../../../src/core/tasks/McpClientTasks';
import { McpTaskAwareClient } from '../../../src/core/tasks/McpTaskAwareClient';

const Any = z.looseObject({});
const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((c) => c()));
});

async function connect(attach: boolean) {
  const server = new Server({ name: 's', version: '1' }, { capabilities: {} });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new McpTaskAwareClient({ name: 'c', version: '1' }, { capabilities: { sampling: {}, elicitation: { form: {} }, roots: {} } });
  const ours = new McpClientTasks('s');
  if (attach) client.attachTasks(ours);
  client.setRequestHandler('sampling/createMessage', async () => ({ role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' }));
  client.setRequestHandler('elicitation/create', async () => ({ action: 'decline' }));
  client.setRequestHandler('roots/list', async () => ({ roots: [] }));
  await client.connect(clientSide);
  closing.push(() => client.close());
  return { server, ours };
}

const sampling = (task?: unknown) => ({ method: 'sampling/createMessage' as const, params: { messages: [{ role: 'user' as const, content: { type: 'text' as const, text: 'q' } }], maxTokens: 5, ...(task !== undefined ? { task } : {}) } });
const question = (task?: unknown) => ({ method: 'elicitation/create' as const, params: { mode: 'form' as const, message: 'Name?', requestedSchema: { type: 'object' as const, properties: {} }, ...(task !== undefined ? { task } : {}) } });

describe('McpTaskAwareClient', () => {
  it('runs a task-augmented sampling or elicitation request as a task of ours, with the time to live asked for', async () => {
    const { server, ours } = await connect(true);
    const sampled = (await server.request(sampling({ ttl: 4000 }), Any)) as { task: { taskId: string; ttl: number } };
    const asked = (await server.request(question({}), Any)) as { task: { taskId: string; ttl: number } };
    expect(sampled.task.ttl).toBe(4000);
    expect(asked.task.ttl).toBe(600_000);
    expect(await server.request({ method: 'tasks/result', params: { taskId: sampled.task.taskId } }, Any)).toMatchObject({ model: 'm' });
    expect(await server.request({ method: 'tasks/result', params: { taskId: asked.task.taskId } }, Any)).toMatchObject({ action: 'decline' });
    expect(ours.list().tasks.map((t) => t.taskId)).toEqual([sampled.task.taskId, asked.task.taskId]);
  });

  it('answers a request without a task, or with a task that is not an object, as an ordinary one', async () => {
    const { server, ours } = await connect(true);
    expect(await server.request(sampling(), Any)).toMatchObject({ model: 'm' });
    // The SDK's own check of the request refuses a task that is not an object.
    await expect(server.request(question(null), Any)).rejects.toThrow(/Invalid elicitation request/);
    await expect(server.request(question(5), Any)).rejects.toThrow(/Invalid elicitation request/);
    expect(await server.request({ method: 'roots/list', params: { task: {} } } as never, Any)).toEqual({ roots: [] });
    expect(ours.list().tasks).toEqual([]);
  });

  it('answers a task-augmented request as an ordinary one when no tasks are attached', async () => {
    const { server, ours } = await connect(false);
    expect(await server.request(sampling({ ttl: 1000 }), Any)).toMatchObject({ model: 'm' });
    expect(ours.list().tasks).toEqual([]);
  });
});
