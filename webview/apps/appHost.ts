// The MCP Apps host script: a bundle of its own, loaded by the chat page the first time a card
// shows an app. Each app runs in the extension's double iframe: a sandbox page from a loopback
// origin (sandboxed without allow-same-origin, under the app's content security policy) holding
// the app's HTML in a frame of its own. The official app bridge speaks the protocol; this file
// only wires its requests to the card's callbacks and gives it the host's context.
import {
  AppBridge,
  buildAllowAttribute,
  PostMessageTransport,
  type McpUiHostCapabilities,
  type McpUiHostContext,
  type McpUiResourceCsp,
  type McpUiResourcePermissions,
  type McpUiStyles,
} from '@modelcontextprotocol/ext-apps/app-bridge';
import type { CallToolResult, ContentBlock, Tool } from '@modelcontextprotocol/client';
import { APP_HOST_GLOBAL, type MountApp, type MountOptions, type MountedApp } from './appHostApi';

const HOST_INFO = { name: 'MCP Harness', version: '0.1.0' };

/** MCP App style variables from VS Code's theme variables: light, dark and high-contrast themes all apply. */
const STYLE_SOURCES: Readonly<Record<string, readonly string[]>> = {
  '--color-background-primary': ['--vscode-editor-background'],
  '--color-background-secondary': ['--vscode-sideBar-background', '--vscode-editor-background'],
  '--color-background-tertiary': ['--vscode-editorWidget-background'],
  '--color-background-inverse': ['--vscode-editor-foreground'],
  '--color-background-info': ['--vscode-inputValidation-infoBackground'],
  '--color-background-danger': ['--vscode-inputValidation-errorBackground'],
  '--color-background-warning': ['--vscode-inputValidation-warningBackground'],
  '--color-background-disabled': ['--vscode-input-background'],
  '--color-text-primary': ['--vscode-foreground'],
  '--color-text-secondary': ['--vscode-descriptionForeground'],
  '--color-text-tertiary': ['--vscode-disabledForeground', '--vscode-descriptionForeground'],
  '--color-text-inverse': ['--vscode-editor-background'],
  '--color-text-info': ['--vscode-editorInfo-foreground'],
  '--color-text-danger': ['--vscode-errorForeground'],
  '--color-text-success': ['--vscode-testing-iconPassed'],
  '--color-text-warning': ['--vscode-editorWarning-foreground'],
  '--color-text-disabled': ['--vscode-disabledForeground'],
  // High-contrast themes draw every border in their contrast colour.
  '--color-border-primary': ['--vscode-contrastBorder', '--vscode-widget-border', '--vscode-panel-border'],
  '--color-border-secondary': ['--vscode-contrastBorder', '--vscode-panel-border'],
  '--color-border-tertiary': ['--vscode-contrastBorder', '--vscode-editorGroup-border'],
  '--color-border-info': ['--vscode-inputValidation-infoBorder'],
  '--color-border-danger': ['--vscode-inputValidation-errorBorder'],
  '--color-border-warning': ['--vscode-inputValidation-warningBorder'],
  '--color-ring-primary': ['--vscode-focusBorder'],
  '--font-sans': ['--vscode-font-family'],
  '--font-mono': ['--vscode-editor-font-family'],
  '--font-text-md-size': ['--vscode-font-size'],
  '--font-text-sm-size': ['--vscode-font-size'],
};

/** The theme and style variables the app gets now (and again whenever the theme changes). */
function themeContext(): Pick<McpUiHostContext, 'theme' | 'styles'> {
  const classes = document.body.classList;
  const light = classes.contains('vscode-light') || classes.contains('vscode-high-contrast-light');
  const computed = getComputedStyle(document.documentElement);
  const variables: Record<string, string> = {};
  for (const [key, sources] of Object.entries(STYLE_SOURCES)) {
    const value = sources.map((s) => computed.getPropertyValue(s).trim()).find((v) => v !== '');
    if (value) variables[key] = value;
  }
  variables['--border-radius-sm'] = '2px';
  variables['--border-radius-md'] = '4px';
  variables['--border-width-regular'] = classes.contains('vscode-high-contrast') || classes.contains('vscode-high-contrast-light') ? '2px' : '1px';
  return { theme: light ? 'light' : 'dark', styles: { variables: variables as McpUiStyles } };
}

function hostContext(options: MountOptions, width: number): McpUiHostContext {
  return {
    ...themeContext(),
    toolInfo: { tool: options.view.tool as Tool },
    displayMode: 'inline',
    availableDisplayModes: ['inline'],
    containerDimensions: { maxHeight: options.maxHeight, width },
    locale: navigator.language,
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    userAgent: 'MCP Harness (VS Code)',
    platform: 'desktop',
    deviceCapabilities: { hover: true, touch: false },
  };
}

function textOf(content: readonly ContentBlock[] | undefined): string {
  return (content ?? []).flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
}

/** The sandbox page's frame: scripts only, and the permissions the app declared. */
function sandboxFrame(options: MountOptions, permissions: McpUiResourcePermissions): HTMLIFrameElement {
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-scripts');
  const allow = buildAllowAttribute(permissions);
  if (allow) frame.setAttribute('allow', allow);
  frame.setAttribute('title', options.title);
  frame.src = options.view.sandboxUrl;
  options.container.append(frame);
  return frame;
}

/** A bridge whose every request goes to the card's callbacks, and which loads the app once the sandbox page is ready. */
function bridgeFor(options: MountOptions, csp: McpUiResourceCsp, permissions: McpUiResourcePermissions): AppBridge {
  const { view, callbacks } = options;
  const capabilities: McpUiHostCapabilities = {
    openLinks: {},
    serverTools: {},
    logging: {},
    message: { text: {} },
    updateModelContext: { text: {}, structuredContent: {} },
    sandbox: { csp, permissions },
  };
  const bridge = new AppBridge(null, HOST_INFO, capabilities, { hostContext: hostContext(options, options.container.clientWidth) });
  bridge.oncalltool = async (params) => (await callbacks.callTool(params.name, params.arguments ?? {})) as CallToolResult;
  bridge.onopenlink = async ({ url }) => ((await callbacks.openLink(url)) ? {} : { isError: true });
  bridge.onmessage = async ({ content }) => {
    const text = textOf(content);
    if (!text) return { isError: true };
    await callbacks.message(text);
    return {};
  };
  bridge.onupdatemodelcontext = async ({ content, structuredContent }) => {
    await callbacks.context([textOf(content), structuredContent ? JSON.stringify(structuredContent) : ''].filter(Boolean).join('\n'));
    return {};
  };
  bridge.addEventListener('loggingmessage', ({ level, data }) => callbacks.log(level, typeof data === 'string' ? data : JSON.stringify(data)));
  bridge.addEventListener('sizechange', ({ height }) => {
    if (typeof height === 'number') callbacks.resize(height);
  });
  bridge.addEventListener('sandboxready', () => {
    void bridge.sendSandboxResourceReady({ html: view.html, sandbox: 'allow-scripts', csp, permissions });
  });
  bridge.addEventListener('initialized', () => {
    void bridge.sendToolInput({ arguments: (view.toolInput ?? {}) as Record<string, unknown> });
    if (view.toolResult !== undefined) void bridge.sendToolResult(view.toolResult as CallToolResult);
    callbacks.ready();
  });
  return bridge;
}

const mountApp: MountApp = (options) => {
  const { callbacks } = options;
  // Checked by the extension; the bridge's types want them mutable.
  const csp = options.view.csp as McpUiResourceCsp;
  const permissions = options.view.permissions as McpUiResourcePermissions;
  const frame = sandboxFrame(options, permissions);
  const bridge = bridgeFor(options, csp, permissions);

  // The app follows the theme: VS Code sets the body's classes and variables when it changes.
  const themes = new MutationObserver(() => bridge.setHostContext(hostContext(options, options.container.clientWidth)));
  themes.observe(document.body, { attributes: true, attributeFilter: ['class', 'style'] });
  themes.observe(document.documentElement, { attributes: true, attributeFilter: ['style'] });

  // Messages count only from this app's sandbox page (the transport checks each one's source).
  const transport = new PostMessageTransport(frame.contentWindow!, frame.contentWindow!);
  bridge.connect(transport).catch((err: unknown) => callbacks.failed(err instanceof Error ? err.message : String(err)));

  let disposed = false;
  const mounted: MountedApp = {
    dispose: () => {
      if (disposed) return;
      disposed = true;
      themes.disconnect();
      const remove = () => {
        frame.remove();
        void bridge.close();
      };
      // The app may save its state first, but only briefly: the card is going.
      Promise.race([bridge.teardownResource({}), new Promise((r) => setTimeout(r, 500))]).then(remove, remove);
    },
  };
  return mounted;
};

(window as unknown as Record<string, MountApp>)[APP_HOST_GLOBAL] = mountApp;
