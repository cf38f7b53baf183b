import react from '@vitejs/plugin-react';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type AliasOptions } from 'vite';

/** The prerendered landing page, next to index.html; the server sends it for `/` to signed-out visitors. */
export const LANDING_FILE = 'landing.html';

/** The file of a prerendered path: landing.html for `/`, help.html for `/help`… (backend/src/http/frontend.ts). */
export const prerenderedFile = (path: string) => (path === '/' ? LANDING_FILE : `${path.slice(1)}.html`);

/**
 * Renders the pages a signed-out visitor can open at build time (src/prerender.tsx, bundled for Node into a
 * temporary folder): the landing page into landing.html, /help, /privacy and /terms into help.html, privacy.html
 * and terms.html: each the built index.html with the page's markup in #root, Ant Design's styles for it inline, its
 * title, and without a script. Signed-out visitors get them instead of the app (backend/src/http/frontend.ts): a
 * few kilobytes of HTML and CSS where the app is React and Ant Design's runtime. Their buttons are forms
 * (SignInButton), their links plain links (to each other, or to the app), the contents' anchors in-page links, so
 * they need no script.
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
    const { renderPage, PRERENDERED_PATHS } = (await import(pathToFileURL(join(tmp, 'prerender.mjs')).href)) as typeof import('../src/prerender');
    const index = readFileSync(join(options.outDir, 'index.html'), 'utf8');
    for (const path of PRERENDERED_PATHS) writeFileSync(join(options.outDir, prerenderedFile(path)), landingPage(index, renderPage(path)));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** index.html with the rendered page in #root, its styles in the head and its title, and without scripts. */
export function landingPage(index: string, page: { html: string; css: string; title?: string }): string {
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
  if (page.title) html = replace(html, /<title>[^<]*<\/title>/, `<title>${escapeHtml(page.title)}</title>`);
  return html;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
