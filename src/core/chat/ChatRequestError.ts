/** A request the panel made that cannot be done now; its message is shown in the panel. */
export class ChatRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChatRequestError';
  }
}
