import { ExclamationCircleOutlined } from '@ant-design/icons';
import { Button } from 'antd';
import { Component, type ReactNode, useEffect, useRef } from 'react';
import { SUPPORT_EMAIL } from '../lib/site';
import { StatusNotice } from './StatusNotice';

/**
 * A page's code is fetched when the page is first opened (routes.tsx): with the server away, or after an update
 * removed the old files, that fetch fails. The browser keeps the failure for the page's address, so only a reload
 * fetches it again.
 */
export function isPageLoadFailure(error: Error): boolean {
  return /dynamically imported module|Importing a module script failed|error loading dynamically imported module|Loading chunk/i.test(error.message);
}

/**
 * What stands in for a page that failed: the rest of the app (navigation, footer) stays usable. A page whose code
 * could not be fetched offline is fetched again (a reload) as soon as the connection is back, as the offline banner
 * promises ("Joy reconnects by itself").
 */
export function PageFailed({ error, reload = () => window.location.reload() }: { error: Error; reload?: () => void }) {
  const loading = isPageLoadFailure(error);
  const reloadOnline = useRef(reload);
  reloadOnline.current = reload;
  useEffect(() => {
    if (!loading) return;
    const online = () => reloadOnline.current();
    window.addEventListener('online', online);
    return () => window.removeEventListener('online', online);
  }, [loading]);
  return (
    <StatusNotice
      Icon={ExclamationCircleOutlined}
      title={loading ? 'This page could not be loaded' : 'Something went wrong'}
      text={
        loading
          ? "Joy couldn't fetch this page from its server: the connection may have dropped, or Joy was just updated. Try again to load it."
          : `This page ran into a problem. Try again; if it keeps happening, please write to us at ${SUPPORT_EMAIL}.`
      }
    >
      <Button type="primary" size="large" onClick={() => window.location.reload()}>
        Try again
      </Button>
    </StatusNotice>
  );
}

/**
 * Catches what a page throws while loading or rendering, so that one failed page does not blank the whole app.
 * Opening another page (`resetKey`, the path) tries again.
 */
export class PageErrorBoundary extends Component<{ children: ReactNode; resetKey?: string }, { error: Error | null }> {
  state: { error: Error | null } = { error: null };

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  componentDidUpdate(previous: { resetKey?: string }) {
    if (this.state.error && previous.resetKey !== this.props.resetKey) this.setState({ error: null });
  }

  render() {
    return this.state.error ? <PageFailed error={this.state.error} /> : this.props.children;
  }
}
