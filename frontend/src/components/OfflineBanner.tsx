import { WifiOutlined } from '@ant-design/icons';
import { useEffect, useState } from 'react';

/** "You are offline" while the browser has no connection (also shown by the service worker's cached shell). */
export function OfflineBanner() {
  const [offline, setOffline] = useState(() => typeof navigator !== 'undefined' && navigator.onLine === false);
  useEffect(() => {
    const update = () => setOffline(!navigator.onLine);
    window.addEventListener('online', update);
    window.addEventListener('offline', update);
    return () => {
      window.removeEventListener('online', update);
      window.removeEventListener('offline', update);
    };
  }, []);
  if (!offline) return null;
  return (
    <div className="offline-banner" role="alert">
      <WifiOutlined aria-hidden="true" /> You are offline. Joy will reconnect when your connection returns; saving
      ratings needs a connection.
    </div>
  );
}
