import { ExperimentOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';

/** GET /api/install */
export interface InstallView {
  demo: boolean;
  optIns: string[];
}

/**
 * "Demo" on every page of an install that runs in production with a development convenience turned on
 * (AUTH_DEV_LOGIN, BILLING_SANDBOX): nobody should mistake it for a real one, or trust it with real data.
 */
export function DemoBanner() {
  const { data } = useQuery<InstallView>({ queryKey: ['/api/install'] });
  if (!data?.demo) return null;
  return (
    <div className="demo-banner" role="note" aria-label="Demo install">
      <ExperimentOutlined aria-hidden="true" /> <strong>Demo</strong> — development conveniences are on ({data.optIns.join(', ')}): anyone can
      sign in without a password or get Joy Premium for free. Do not enter real data.
    </div>
  );
}
