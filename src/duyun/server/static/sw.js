// The service worker of the installable app (issue 31 item 7), served as /sw.js by the server,
// which fills in the version stamp (a hash of the client's files) and the shell's file list.
//
// It caches the static shell only: the page and the files under /static. Never /api, /ws or
// anything else: account tokens travel in the Authorization header of /api requests and in
// the websocket, and neither ever passes through here (the worker leaves every request it does
// not know to the browser).
//
// Network first: a game that needs its server gains little from a page that opens offline,
// and everything from a client that is always the server's own version (an old shell against a
// new server would be refused; ES modules of two versions mixed would break). So each shell
// file is fetched from the network (revalidated, a 304 when unchanged) and kept in this
// version's cache; the cache answers only when the network fails, with one whole version.
// A new stamp means a new worker: it caches its shell, then waits until the page's player
// presses 刷新 (the page sends "skip-waiting"); the old caches are deleted when it takes over.

const VERSION = "__SHELL_VERSION__";
const SHELL = ["__SHELL_FILES__"];
const CACHE = `duyun-shell-${VERSION}`;
const PAGES = /^\/(t\/\d{6}\/?)?$/;

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL.map((url) => new Request(url, { cache: "no-cache" })))));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith("duyun-shell-") && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("message", (event) => {
  if (event.data?.type === "skip-waiting") self.skipWaiting();
  if (event.data?.type === "version") event.source?.postMessage({ type: "version", version: VERSION });
});

/** The shell's cache key of a request, or null when the worker must leave it alone. */
function shellKey(request) {
  if (request.method !== "GET") return null;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return null;
  // the page itself (/, /?join=…, /t/CODE): one cached copy, "/"
  if (request.mode === "navigate") return PAGES.test(url.pathname) ? "/" : null;
  if (url.search || request.headers.has("Authorization")) return null;
  return SHELL.includes(url.pathname) ? url.pathname : null;
}

self.addEventListener("fetch", (event) => {
  const key = shellKey(event.request);
  if (!key) return; // /api, /ws, /manifest.webmanifest, /sw.js…: the browser's own fetch
  event.respondWith(
    (async () => {
      const cache = await caches.open(CACHE);
      try {
        const response = await fetch(event.request.mode === "navigate" ? event.request : new Request(key, { cache: "no-cache" }));
        // the page gets its answer at once and the copy is stored meanwhile (waitUntil keeps
        // the worker alive for it), instead of the page's load waiting for the cache to have
        // read the whole body of the copy
        if (response.ok && response.type === "basic") event.waitUntil(cache.put(key, response.clone()));
        return response;
      } catch (err) {
        const cached = await cache.match(key);
        if (cached) return cached;
        throw err;
      }
    })(),
  );
});
