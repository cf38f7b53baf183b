import { DisconnectOutlined } from '@ant-design/icons';
import { Button } from 'antd';
import { StatusNotice } from './StatusNotice';

/** What stands in for a page, by why the session could not be checked. */
function noticeOf(offline: boolean, busy: boolean): { title: string; text: string } {
  if (offline) return { title: 'You are offline', text: "Joy can't reach the internet right now, so your ratings can't be loaded. Check your connection and try again." };
  if (busy) return { title: 'Joy is busy', text: 'Many people are using Joy right now. Please try again in a moment.' };
  return { title: "Joy can't be reached", text: "Joy's server didn't answer. Please try again in a moment." };
}

/**
 * Shown when Joy's server could not be reached to check the session — typically a reload while offline,
 * answered by the service worker's cached app shell — or answered that it is too busy (`busy`).
 */
export function OfflineNotice({ busy = false }: { busy?: boolean }) {
  const offline = typeof navigator !== 'undefined' && navigator.onLine === false;
  const { title, text } = noticeOf(offline, busy);
  return (
    <StatusNotice Icon={DisconnectOutlined} title={title} text={text}>
      <Button type="primary" size="large" onClick={() => window.location.reload()}>
        Try again
      </Button>
    </StatusNotice>
  );
}
