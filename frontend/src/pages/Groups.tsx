// Built in issue N: the Groups page (list, create and join dialogs, group detail).
// Placeholder route module: the engineer building this page replaces this file (keep the default export).
import { Typography } from 'antd';
import { PageHeader } from '../components/PageHeader';

export default function GroupsPage() {
  return (
    <>
      <PageHeader title="Your Groups" />
      <Typography.Paragraph type="secondary">This page is coming soon.</Typography.Paragraph>
    </>
  );
}
