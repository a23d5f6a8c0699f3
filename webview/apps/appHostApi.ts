// The contract between the chat page and its MCP Apps host script, which the page loads on first
// use (the extension's app bridge is larger than the rest of the page together). Types only.
import type { ChatAppView } from '../../src/shared/chatProtocol';

/** What a mounted app may ask of its card; each goes to the extension, which applies its rules. */
export interface AppCallbacks {
  /** `tools/call` of the app: the extension's gate and pipeline. Resolves with the CallToolResult. */
  callTool(name: string, args: Record<string, unknown>): Promise<unknown>;
  /** Whether the user agreed and the link opened. */
  openLink(url: string): Promise<boolean>;
  message(text: string): Promise<void>;
  context(text: string): Promise<void>;
  log(level: string, text: string): void;
  /** The app's content is this tall (CSS pixels). */
  resize(height: number): void;
  /** The app finished its handshake and has its input and result. */
  ready(): void;
  /** The app cannot run (the bridge failed): why. */
  failed(message: string): void;
}

export interface MountOptions {
  /** Where the app's frame goes. */
  readonly container: HTMLElement;
  readonly view: ChatAppView;
  /** The frame's accessible name. */
  readonly title: string;
  /** The most the app's frame may grow to. */
  readonly maxHeight: number;
  readonly callbacks: AppCallbacks;
}

export interface MountedApp {
  /** Tells the app it goes (`ui/resource-teardown`) and removes its frame. */
  dispose(): void;
}

export type MountApp = (options: MountOptions) => MountedApp;

/** Where the host script leaves its entry point when it has loaded. */
export const APP_HOST_GLOBAL = '__mcpHarnessAppHost';
