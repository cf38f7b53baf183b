import { LoadingOutlined } from '@ant-design/icons';
import { Progress } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { SERVER_RETRY_MS } from '../auth';
import { StatusNotice } from './StatusNotice';

interface StartingHealth {
  status: string;
  progress?: { position: number; head: number };
}

/** /api/health while the server starts: 503 with how far the build of the read models is (not an error here). */
async function startingHealth(): Promise<StartingHealth> {
  const res = await fetch('/api/health', { credentials: 'include' });
  return (await res.json()) as StartingHealth;
}

/**
 * Shown while Joy's server is starting (it answers 503 `server.starting` while it builds its read models, as on
 * the first start after an update): how far it is, and that the page goes on by itself (the sign-in check asks
 * again every 2 s), instead of "Joy can't be reached".
 */
export function StartingNotice() {
  const health = useQuery({ queryKey: ['/api/health', 'starting'], queryFn: startingHealth, refetchInterval: SERVER_RETRY_MS, retry: false });
  const progress = health.data?.progress;
  const percent = progress && progress.head > 0 ? Math.min(99, Math.floor((progress.position / progress.head) * 100)) : null;
  return (
    <StatusNotice
      Icon={LoadingOutlined}
      title="Joy is starting"
      text="Joy is getting your data ready after an update or a restart. This page goes on by itself as soon as it is ready."
    >
      {percent !== null && (
        <div className="starting__progress" role="status">
          <Progress percent={percent} aria-label="Getting ready" />
        </div>
      )}
    </StatusNotice>
  );
}
