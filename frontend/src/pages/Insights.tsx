// Built in issue N: Joy Insights (ECharts donut and bar charts, personalized insights).
// Placeholder route module: the engineer building this page replaces this file (keep the default export).
import { Typography } from 'antd';
import { PageHeader } from '../components/PageHeader';

export default function InsightsPage() {
  return (
    <>
      <PageHeader title="Joy Insights" />
      <Typography.Paragraph type="secondary">This page is coming soon.</Typography.Paragraph>
    </>
  );
}
