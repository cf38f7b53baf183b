import { DisconnectOutlined } from '@ant-design/icons';
import { Button } from 'antd';
import { useEffect } from 'react';

/**
 * Shown when Joy's server could not be reached to check the session — typically a reload while offline,
 * answered by the service worker's cached app shell.
 */
export function OfflineNotice() {
  const offline = typeof navigator !== 'undefined' && navigator.onLine === false;
  const title = offline ? 'You are offline' : "Joy can't be reached";
  useEffect(() => {
    document.title = `${title} · Joy`;
  }, [title]);
  return (
    <section className="not-found" aria-labelledby="offline-title">
      <DisconnectOutlined className="not-found__icon" aria-hidden="true" />
      <h1 id="offline-title" className="not-found__title">
        {title}
      </h1>
      <p className="not-found__text">
        {offline
          ? "Joy can't reach the internet right now, so your ratings can't be loaded. Check your connection and try again."
          : "Joy's server didn't answer. Please try again in a moment."}
      </p>
      <Button type="primary" size="large" onClick={() => window.location.reload()}>
        Try again
      </Button>
    </section>
  );
}
