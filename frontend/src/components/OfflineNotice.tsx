import { DisconnectOutlined } from '@ant-design/icons';
import { Button } from 'antd';
import { StatusNotice } from './StatusNotice';

/**
 * Shown when Joy's server could not be reached to check the session — typically a reload while offline,
 * answered by the service worker's cached app shell.
 */
export function OfflineNotice() {
  const offline = typeof navigator !== 'undefined' && navigator.onLine === false;
  return (
    <StatusNotice
      Icon={DisconnectOutlined}
      title={offline ? 'You are offline' : "Joy can't be reached"}
      text={
        offline
          ? "Joy can't reach the internet right now, so your ratings can't be loaded. Check your connection and try again."
          : "Joy's server didn't answer. Please try again in a moment."
      }
    >
      <Button type="primary" size="large" onClick={() => window.location.reload()}>
        Try again
      </Button>
    </StatusNotice>
  );
}
