import { StyleProvider, createCache, extractStyle } from '@ant-design/cssinjs';
import { iconStyles } from '@ant-design/icons/es/utils';
import { App as AntApp, ConfigProvider } from 'antd';
import { renderToStaticMarkup } from 'react-dom/server';
import { StaticRouter } from 'react-router-dom';
import Landing from './pages/Landing';
import { theme } from './theme';

/**
 * The landing page `/` as HTML and CSS, rendered at build time (scripts/prerender-landing.ts) from the same
 * component the app shows, in the same frame (theme, antd's App): the server sends it to signed-out visitors, so
 * they load neither React nor Ant Design. `css` holds the styles Ant Design and its icons write at run time for
 * what the page shows (the global style sheet, styles.css, is linked as in the app).
 */
export function renderLanding(): { html: string; css: string } {
  const cache = createCache();
  const html = renderToStaticMarkup(
    <StyleProvider cache={cache}>
      <ConfigProvider theme={theme}>
        <AntApp>
          <StaticRouter location="/">
            <Landing />
          </StaticRouter>
        </AntApp>
      </ConfigProvider>
    </StyleProvider>,
  );
  return { html, css: iconStyles + extractStyle(cache, { plain: true }) };
}
