import { Spin } from 'antd';

/** The loading placeholder of a page. */
export function PageLoading({ fullScreen = false }: { fullScreen?: boolean }) {
  return (
    <div className={fullScreen ? 'page-loading page-loading--full' : 'page-loading'} role="status" aria-live="polite">
      <Spin size="large" />
      <span>Loading...</span>
    </div>
  );
}
