import { StyleProvider, createCache, extractStyle } from '@ant-design/cssinjs';
import { iconStyles } from '@ant-design/icons/es/utils';
import { App as AntApp, ConfigProvider } from 'antd';
import type { ComponentType } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { Route, Routes, StaticRouter } from 'react-router-dom';
import { PublicLayout } from './components/PublicLayout';
import Help from './pages/Help';
import Landing from './pages/Landing';
import Privacy from './pages/Privacy';
import Terms from './pages/Terms';
import { ALWAYS_ROUTES } from './routes';
import { theme } from './theme';

/** A page rendered at build time: its markup, the styles Ant Design writes for it, and its document title. */
export interface RenderedPage {
  html: string;
  css: string;
  /** undefined: index.html's title (the landing page's). */
  title?: string;
}

/** The public pages the app shows in PublicLayout (routes.ts, ALWAYS_ROUTES), imported directly instead of lazily. */
const PUBLIC_PAGES: Record<string, ComponentType> = { '/help': Help, '/privacy': Privacy, '/terms': Terms };

/** The paths prerendered: the landing page and every page open to everyone. */
export const PRERENDERED_PATHS = ['/', ...ALWAYS_ROUTES.map((r) => r.path)];

/**
 * A page a signed-out visitor can open, as HTML and CSS, rendered at build time (scripts/prerender-landing.ts) from
 * the same components the app shows, in the same frame (theme, antd's App, PublicLayout for the public pages): the
 * server sends it to signed-out visitors, so they load neither React nor Ant Design. `css` holds the styles Ant
 * Design and its icons write at run time for what the page shows (the global style sheet, styles.css, is linked as
 * in the app). The title is the one the page sets at run time (PageHeader: "<title> · Joy").
 */
export function renderPage(path: string): RenderedPage {
  const route = ALWAYS_ROUTES.find((r) => r.path === path);
  const Page = PUBLIC_PAGES[path];
  if (path !== '/' && (!route || !Page)) throw new Error(`prerender: no public page at ${path}`);
  const cache = createCache();
  const html = renderToStaticMarkup(
    <StyleProvider cache={cache}>
      <ConfigProvider theme={theme}>
        <AntApp>
          <StaticRouter location={path}>
            {path === '/' ? (
              <Landing />
            ) : (
              <Routes>
                <Route element={<PublicLayout />}>
                  <Route path={path} element={<Page />} />
                </Route>
              </Routes>
            )}
          </StaticRouter>
        </AntApp>
      </ConfigProvider>
    </StyleProvider>,
  );
  return { html, css: iconStyles + extractStyle(cache, { plain: true }), ...(route ? { title: `${route.title} · Joy` } : {}) };
}
