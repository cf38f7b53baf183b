import react from '@vitejs/plugin-react';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type AliasOptions } from 'vite';

/** The prerendered landing page, next to index.html; the server sends it for `/` to signed-out visitors. */
export const LANDING_FILE = 'landing.html';

/**
 * Renders the landing page at build time (src/prerender.tsx, bundled for Node into a temporary folder) and writes
 * landing.html: the built index.html with the page's markup in #root and Ant Design's styles for it inline, and
 * without a script. Signed-out visitors of `/` get it instead of the app (backend/src/http/frontend.ts): a few
 * kilobytes of HTML and CSS where the app is React and Ant Design's runtime. Its buttons are forms (SignInButton),
 * its links plain links, so it needs no script.
 */
export async function prerenderLanding(options: { root: string; outDir: string; alias: AliasOptions }): Promise<void> {
  const tmp = join(options.root, 'node_modules', '.joy-prerender');
  try {
    await build({
      configFile: false,
      root: options.root,
      mode: 'production',
      logLevel: 'warn',
      publicDir: false,
      plugins: [react()],
      resolve: { alias: options.alias },
      // Ant Design's production class names and styles (not its development ones).
      define: { 'process.env.NODE_ENV': JSON.stringify('production') },
      ssr: { noExternal: true },
      build: { ssr: 'src/prerender.tsx', outDir: tmp, emptyOutDir: true, rolldownOptions: { output: { entryFileNames: 'prerender.mjs' } } },
    });
    const { renderLanding } = (await import(pathToFileURL(join(tmp, 'prerender.mjs')).href)) as typeof import('../src/prerender');
    const index = readFileSync(join(options.outDir, 'index.html'), 'utf8');
    writeFileSync(join(options.outDir, LANDING_FILE), landingPage(index, renderLanding()));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** index.html with the rendered page in #root and its styles in the head, and without scripts. */
export function landingPage(index: string, page: { html: string; css: string }): string {
  // React puts the resources it wants preloaded (the logo) before the markup: they belong in the head.
  const hoisted = /^(?:<link [^>]*\/>)*/.exec(page.html)![0];
  const body = page.html.slice(hoisted.length);
  const replace = (text: string, pattern: RegExp, by: string) => {
    if (!pattern.test(text)) throw new Error(`prerender-landing: ${pattern} not found in index.html`);
    return text.replace(pattern, () => by);
  };
  let html = index;
  html = replace(html, /\s*<script type="module"[^>]*><\/script>/g, '');
  html = html.replace(/\s*<link rel="modulepreload"[^>]*>/g, '');
  html = replace(html, /\s*<noscript>[\s\S]*?<\/noscript>/, '');
  // Before the global style sheet, as in the app, where Ant Design's run-time styles come first in the head.
  const stylesheet = /\n\s*<link rel="stylesheet"/.exec(html);
  if (!stylesheet) throw new Error('prerender-landing: no style sheet link in index.html');
  const indent = stylesheet[0].slice(0, stylesheet[0].indexOf('<'));
  html = html.slice(0, stylesheet.index) + `${indent}${hoisted}${indent}<style>${page.css}</style>` + html.slice(stylesheet.index);
  html = replace(html, /<div id="root"><\/div>/, `<div id="root">${body}</div>`);
  return html;
}
