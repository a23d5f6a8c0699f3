import { APP_HOST_GLOBAL, type MountApp } from '../../apps/appHostApi';

// The page's own script element (a module, so `document.currentScript` is null): where the app host
// script is, and the nonce that lets it load.
const pageScript = document.querySelector<HTMLScriptElement>('script[data-app-host]');
const hostUrl = pageScript?.dataset.appHost;
const nonce = pageScript?.nonce;

let loading: Promise<MountApp> | undefined;

/** The MCP Apps host script, loaded on first use (a script element with the page's nonce). */
export function loadAppHost(): Promise<MountApp> {
  loading ??= new Promise<MountApp>((resolve, reject) => {
    if (!hostUrl) return reject(new Error('this page cannot show apps'));
    const script = document.createElement('script');
    if (nonce) script.nonce = nonce;
    script.src = hostUrl;
    script.onload = () => {
      const mount = (window as unknown as Record<string, MountApp | undefined>)[APP_HOST_GLOBAL];
      if (mount) resolve(mount);
      else reject(new Error('the app host script did not start'));
    };
    script.onerror = () => reject(new Error('the app host script did not load'));
    document.head.append(script);
  }).catch((err: unknown) => {
    loading = undefined;
    throw err;
  });
  return loading;
}
