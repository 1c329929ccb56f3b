// twinstar's service worker: keeps a copy of the web client so that the
// page opens without the network (synctest, local play, replays; online
// play needs its server and says so), and replaces that copy when a new
// client is served.
//
// Versioning: scripts/build-web.sh writes the game's version and a hash of
// every other file of the client (its assets too) into VERSION below (e.g.
// "0.1.0-3f2a9c1d7e4b"). A rebuilt client is a new sw.js, byte for byte;
// the browser checks sw.js on every visit (the server sends it with
// `Cache-Control: no-cache` and the page registers it with
// updateViaCache "none"), installs the new worker, which copies the new
// files into a cache of its own name, takes over at once and deletes the
// caches of older versions. The page already open keeps the files it
// loaded; the next visit runs the new client.
//
// Only the client's own files are answered from the cache (cache first);
// anything else (GET /ice, GET /rooms, the signaling websocket) goes to the
// network untouched and is never cached.

const VERSION = "@TWINSTAR_VERSION@";
const PREFIX = "twinstar-";
const CACHE = `${PREFIX}${VERSION}`;

// The client's files, relative to this worker's scope ("./" is the page).
const SHELL = [
  "./",
  "twinstar.js",
  "twinstar_bg.wasm",
  "mq_js_bundle.js",
  "manifest.webmanifest",
  "icon-192.png",
  "icon-512.png",
  "icon-maskable-512.png",
  "apple-touch-icon.png",
  // The game's assets the page fetches after its first frame (sounds, the
  // starfield), as scripts/build-web.sh lists them.
  ..."@TWINSTAR_ASSETS@".split(" ").filter((name) => name && !name.startsWith("@")),
];

// The inspector (/inspect: its page, its script, its own wasm and glue).
// Cached at install too, so the installed page inspects offline, but only
// after the game's own files are, and without failing the install: the
// game's first load never waits for it, and a server without the
// inspector still gets an offline game. Not "on first use": a player who
// is sent a desync report while offline could not open it then.
const INSPECTOR = ["inspect.html", "inspect.js", "twinstar_inspect.js", "twinstar_inspect_bg.wasm"];

const scope = new URL(self.registration.scope);
const shellUrls = new Set([...SHELL, ...INSPECTOR].map((path) => new URL(path, scope).href));
const page = new URL("./", scope).href;
const inspectPage = new URL("inspect.html", scope).href;

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      // "no-cache": asked of the server again, but with the HTTP cache's
      // ETag, so files the page has just loaded come back as 304s and are
      // not downloaded twice on a first visit; a changed file comes whole.
      const request = (path) => new Request(new URL(path, scope), { cache: "no-cache" });
      await cache.addAll(SHELL.map(request));
      await self.skipWaiting();
      await cache
        .addAll(INSPECTOR.map(request))
        .catch((e) => console.log(`twinstar: the inspector is not kept offline: ${e.message}`));
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

// The cached copy of a request for one of the client's files, or null.
function shellKey(request) {
  if (request.method !== "GET") return null;
  const url = new URL(request.url);
  if (url.origin !== scope.origin) return null;
  // The page, however it is opened: a room's link only adds a fragment
  // (never sent), a shared link may add a query, an old one /index.html.
  if (request.mode === "navigate") {
    const path = url.pathname;
    if (path === `${scope.pathname}inspect` || path === `${scope.pathname}inspect.html`) return inspectPage;
    return path === scope.pathname || path === `${scope.pathname}index.html` ? page : null;
  }
  url.search = "";
  url.hash = "";
  return shellUrls.has(url.href) ? url.href : null;
}

self.addEventListener("fetch", (event) => {
  const key = shellKey(event.request);
  if (key === null) return; // the network's, as if there were no worker
  event.respondWith(
    (async () => {
      const cache = await caches.open(CACHE);
      const cached = await cache.match(key);
      return cached || fetch(event.request);
    })(),
  );
});
