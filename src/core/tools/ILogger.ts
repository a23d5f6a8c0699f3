/** Where the tools layer reports problems that do not stop it (a server's bad tool, a bad schema). */
export interface ILogger {
  warn(message: string): void;
}

/** A logger that drops everything; the default when none is injected. */
export const nullLogger: ILogger = { warn: () => undefined };
