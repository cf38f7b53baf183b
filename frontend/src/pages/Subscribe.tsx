// Built in issue N: the Joy Premium payment page.
// Placeholder route module: the engineer building this page replaces this file (keep the default export).
import { Typography } from 'antd';
import { PageHeader } from '../components/PageHeader';

export default function SubscribePage() {
  return (
    <>
      <PageHeader title="Joy Premium" />
      <Typography.Paragraph type="secondary">This page is coming soon.</Typography.Paragraph>
    </>
  );
}
