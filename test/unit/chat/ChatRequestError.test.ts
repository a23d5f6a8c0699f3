import { describe, expect, it } from 'vitest';
import { ChatAttachments } from '../../../src/core/chat/ChatAttachments';
import { ChatRequestError } from '../../../src/core/chat/ChatRequestError';
import { contextRequests } from '../../../src/core/chat/contextRequests';

describe('ChatRequestError', () => {
  it('names a request the panel cannot have done now, apart from a crash', async () => {
    const attachments = new ChatAttachments(() => undefined, undefined, () => undefined);
    const handlers = contextRequests({ items: undefined, attachments });
    const refused = await handlers.complete({ server: 'notes', ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a', value: '' } }).catch((e: unknown) => e as Error);
    expect(refused).toBeInstanceOf(ChatRequestError);
    expect(refused).toMatchObject({ name: 'ChatRequestError', message: "Servers' prompts and resources are not available here." });
    expect(String(refused)).toBe("ChatRequestError: Servers' prompts and resources are not available here.");
    attachments.dispose();
  });
});
