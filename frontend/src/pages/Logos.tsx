// Built in issue N: the logo concepts page.
// Placeholder route module: the engineer building this page replaces this file (keep the default export).
import { Typography } from 'antd';
import { PageHeader } from '../components/PageHeader';

export default function LogosPage() {
  return (
    <>
      <PageHeader title="Logo Concepts" />
      <Typography.Paragraph type="secondary">This page is coming soon.</Typography.Paragraph>
    </>
  );
}
