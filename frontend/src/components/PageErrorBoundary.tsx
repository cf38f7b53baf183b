import { ExclamationCircleOutlined } from '@ant-design/icons';
import { Button } from 'antd';
import { Component, type ReactNode } from 'react';
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

/** What stands in for a page that failed: the rest of the app (navigation, footer) stays usable. */
export function PageFailed({ error }: { error: Error }) {
  const loading = isPageLoadFailure(error);
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
