import { Typography } from 'antd';
import { useEffect, type ReactNode } from 'react';

/** A page's heading; also sets the document title. */
export function PageHeader({ title, subtitle, extra }: { title: string; subtitle?: ReactNode; extra?: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · Joy`;
  }, [title]);
  return (
    <div className="page-header">
      <div>
        <Typography.Title level={1} className="page-header__title">
          {title}
        </Typography.Title>
        {subtitle && <Typography.Paragraph className="page-header__subtitle">{subtitle}</Typography.Paragraph>}
      </div>
      {extra && <div className="page-header__extra">{extra}</div>}
    </div>
  );
}
