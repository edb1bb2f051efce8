// The installable app in the page (issue 31 item 7): the service worker's registration and its
// "new version" notice, the install button where the browser offers one (`beforeinstallprompt`),
// and the manifest in the page's language. Its small bar lives outside #app (the screens never
// redraw it); it shows on the lobby (install) and on every screen (a new version).

import { getLocale, onLangChange, t } from "./i18n.js";

const state = { prompt: null, waiting: null, installed: false };
// how often an open page asks the server for a newer worker (a long session, a deploy)
const UPDATE_EVERY = 30 * 60 * 1000;
// how long 刷新 waits for the new worker to take over before it reloads the page anyway
const RELOAD_FALLBACK = 3000;

function bar() {
  let el = document.getElementById("pwa-bar");
  if (!el) {
    el = document.createElement("div");
    el.id = "pwa-bar";
    el.setAttribute("role", "status");
    document.body.append(el);
  }
  return el;
}

/** Draw the bar again (after a change or a language switch). */
export function drawPwa() {
  const parts = [];
  if (state.waiting)
    parts.push(
      `<div class="pwa-note" id="update-notice"><span>${t("update_ready")}</span><button class="btn small" data-do="pwa-reload" id="update-reload">${t("update_reload")}</button></div>`,
    );
  if (state.prompt && !state.installed)
    parts.push(
      `<div class="pwa-note pwa-install"><button class="btn small" data-do="pwa-install" id="install-btn">${t("install_app")}</button><button class="icon-btn" data-do="pwa-later" aria-label="${t("close")}" title="${t("close")}">×</button></div>`,
    );
  const el = bar();
  const html = parts.join("");
  if (el.dataset.html !== html) {
    el.innerHTML = html;
    el.dataset.html = html;
  }
}

function manifestLink() {
  const link = document.querySelector('link[rel="manifest"]');
  if (link) link.href = `/manifest.webmanifest?lang=${getLocale()}`;
  const title = document.querySelector('meta[name="apple-mobile-web-app-title"]');
  if (title) title.content = t("title");
  document.title = `${t("title")}${getLocale() === "en" ? "" : " · Duyun Mahjong"}`;
}

function watchWorker(reg) {
  const found = (worker) => {
    if (!worker) return;
    const ready = () => {
      // a new version waits while an older one controls this page; the very first has
      // nothing to replace
      if (worker.state === "installed" && navigator.serviceWorker.controller) {
        state.waiting = worker;
        drawPwa();
      } else if (state.waiting === worker && worker.state !== "installed") {
        // it took over (or was replaced by a newer one): nothing waits any more
        state.waiting = null;
        drawPwa();
      }
    };
    ready();
    worker.addEventListener("statechange", ready);
  };
  found(reg.waiting);
  reg.addEventListener("updatefound", () => found(reg.installing));
}

async function register() {
  if (!("serviceWorker" in navigator) || !window.isSecureContext) return;
  try {
    const reg = await navigator.serviceWorker.register("/sw.js", { scope: "/" });
    watchWorker(reg);
    setInterval(() => reg.update().catch(() => {}), UPDATE_EVERY);
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") reg.update().catch(() => {});
    });
    window.__duyunWorker = reg; // for the browser tests
  } catch {
    /* no worker (a private window, an old browser): the page works as before */
  }
}

export const pwaHandlers = {
  "pwa-reload": () => {
    const worker = state.waiting;
    if (!worker) return;
    let reloading = false;
    const reload = () => {
      if (!reloading) {
        reloading = true;
        location.reload();
      }
    };
    navigator.serviceWorker.addEventListener("controllerchange", reload);
    worker.postMessage({ type: "skip-waiting" });
    // Chromium sometimes holds the new worker back while this page lives (seen under load:
    // skipWaiting's promise never settled, no controllerchange for minutes), and the reload
    // itself lets it take over. The reloaded page has the new files either way: the worker
    // asks the network first.
    setTimeout(reload, RELOAD_FALLBACK);
  },
  "pwa-install": async () => {
    const prompt = state.prompt;
    if (!prompt) return;
    state.prompt = null;
    drawPwa();
    prompt.prompt();
    try {
      await prompt.userChoice;
    } catch {
      /* dismissed */
    }
  },
  "pwa-later": () => {
    state.prompt = null;
    drawPwa();
  },
};

export function startPwa() {
  manifestLink();
  onLangChange(() => {
    manifestLink();
    drawPwa();
  });
  window.addEventListener("beforeinstallprompt", (event) => {
    event.preventDefault(); // our own button, shown on the lobby, instead of the browser's bar
    state.prompt = event;
    drawPwa();
  });
  window.addEventListener("appinstalled", () => {
    state.installed = true;
    state.prompt = null;
    drawPwa();
  });
  if (document.readyState === "complete") register();
  else window.addEventListener("load", register, { once: true });
}
