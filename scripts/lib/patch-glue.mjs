// node scripts/lib/patch-glue.mjs GLUE.js
//
// Adapts the glue that `wasm-bindgen --target web` writes (checked with
// wasm-bindgen 0.2.130) to macroquad's loader (mq_js_bundle.js), which
// instantiates the module itself and passes its imports in one object:
//
// - macroquad's functions come from the module "env". The glue imports
//   each of them as `import * as importN from "env"` (a bare specifier no
//   browser resolves) and puts `"env": importN` in the object its
//   `__wbg_get_imports()` returns: both go; macroquad fills "env" itself.
// - `__wbg_get_imports` is exported, for web/index.html to hand the rest
//   (wasm-bindgen's own module) to macroquad's loader.
// - `__mq_set_wasm(exports)` is added: it gives the glue macroquad's
//   instance (the glue's `wasm`) and drops the glue's cached views of the
//   memory, as the glue's own `__wbg_finalize_init` does, but without
//   calling `__wbindgen_start`: macroquad's loader calls `main` itself.
//
// Fails, naming what it did not find, if the glue is not shaped like that.
import { readFileSync, writeFileSync } from "node:fs";

const path = process.argv[2];
if (!path) {
  console.error("usage: node patch-glue.mjs GLUE.js");
  process.exit(2);
}
const fail = (why) => {
  console.error(`patch-glue: ${path}: ${why}`);
  process.exit(1);
};

let glue = readFileSync(path, "utf8");
if (glue.includes("export function __mq_set_wasm(")) fail("already patched");

const envImport = /^import \* as (import\d+) from "env";?\n/gm;
const removed = [...glue.matchAll(envImport)].map((m) => m[1]);
glue = glue.replace(envImport, "");
for (const name of removed) {
  const entry = new RegExp(`^\\s*"env": ${name},\\n`, "m");
  if (!entry.test(glue)) fail(`no "env": ${name} entry in the imports object`);
  glue = glue.replace(entry, "");
}
if (/from\s+["']env["']/.test(glue) || /"env"\s*:/.test(glue)) {
  fail('an import from "env" is left that this script does not know how to remove');
}

if (!/^function __wbg_get_imports\(\)/m.test(glue)) fail("no function __wbg_get_imports()");
if (!/^let\s[^;]*\bwasm\b[^;]*;/m.test(glue)) fail("no top-level `let ... wasm ...;`");
const caches = [...glue.matchAll(/^let (cached\w+) = null;/gm)].map((m) => m[1]);
for (const cache of caches) {
  // The glue's own init resets each; so must ours.
  if (!new RegExp(`^\\s*${cache} = null;`, "m").test(glue)) {
    fail(`${cache} is never reset by the glue's init: has its shape changed?`);
  }
}

glue += `
// Added by scripts/lib/patch-glue.mjs for macroquad's loader (web/index.html).
export { __wbg_get_imports };
export function __mq_set_wasm(exports) {
    wasm = exports;
${caches.map((c) => `    ${c} = null;\n`).join("")}}
`;
writeFileSync(path, glue);
console.log(
  `patch-glue: removed ${removed.length} "env" imports; __mq_set_wasm resets ${caches.length} cached views (${caches.join(", ") || "none"})`,
);
