// Built in issue N: the Joy Dashboard (summary cards, rating panel beside the Current Joy Level gauge, ECharts trend charts).
// Placeholder route module: the engineer building this page replaces this file (keep the default export).
import { Typography } from 'antd';
import { PageHeader } from '../components/PageHeader';

export default function DashboardPage() {
  return (
    <>
      <PageHeader title="Your Joy Dashboard" />
      <Typography.Paragraph type="secondary">This page is coming soon.</Typography.Paragraph>
    </>
  );
}
