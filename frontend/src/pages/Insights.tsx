// Joy Insights (SPEC §2, §9): summary cards, the categories donut and bar charts, and Personalized Insights.
// Calculations and rules live in src/insights/insights.ts (tested).
import {
  BulbOutlined,
  CalendarOutlined,
  FireOutlined,
  LineChartOutlined,
  RiseOutlined,
  StarOutlined,
  TrophyOutlined,
} from '@ant-design/icons';
import { Card, Col, Row, Typography } from 'antd';
import { useCallback, useMemo, type ReactNode } from 'react';
import { EChart } from '../charts/EChart';
import { ChartLegend } from '../charts/ChartLegend';
import { ChartTable } from '../charts/ChartTable';
import { ChartCard } from '../dashboard/ChartCard';
import { StatCard } from '../dashboard/StatCard';
import { formatTrend, trendColor } from '../dashboard/summary';
import { categoriesBarOption, categoriesDonutOption } from '../insights/chartOptions';
import { insightsSummary, personalizedInsights, trendWord, type InsightKind, type InsightsSummary } from '../insights/insights';
import { LinkButton } from '../components/LinkButton';
import { PageHeader } from '../components/PageHeader';
import { ratingsLoadState } from '../components/RatingsLoadState';
import { formatScore } from '../lib/score';
import { useRatings } from '../queries';

const INSIGHT_ICONS: Record<InsightKind, ReactNode> = {
  'great-progress': <RiseOutlined />,
  'growth-opportunity': <BulbOutlined />,
  'recent-improvement': <LineChartOutlined />,
  'consistency-milestone': <TrophyOutlined />,
  'strongest-area': <StarOutlined />,
};

function signed(diff: number): string {
  return formatTrend(diff);
}

function InsightCards({ summary }: { summary: InsightsSummary }) {
  const { recentTrend, strongest, daysTracked, sevenDayAverage, sevenDayDifference, overallAverage, count } = summary;
  return (
    <ul className="summary-cards" aria-label="Summary">
      <li>
        <StatCard
          testId="card-recent-trend"
          label="Recent Trend"
          icon={<RiseOutlined />}
          value={formatTrend(recentTrend)}
          valueColor={trendColor(recentTrend)}
          note={recentTrend === null ? trendWord(null) : `${trendWord(recentTrend)} since your previous rating`}
        />
      </li>
      <li>
        <StatCard
          testId="card-strongest"
          label="Strongest Area"
          icon={<StarOutlined />}
          value={strongest ? strongest.label : 'N/A'}
          textValue
          note={strongest ? `Average ${formatScore(strongest.average)}/5` : undefined}
        />
      </li>
      <li>
        <StatCard
          testId="card-days"
          label="Days Tracked"
          icon={<CalendarOutlined />}
          value={daysTracked}
          note={`${count} ${count === 1 ? 'rating' : 'ratings'} in total`}
        />
      </li>
      <li>
        <StatCard
          testId="card-seven-day"
          label="7-Day Average"
          icon={<FireOutlined />}
          value={formatScore(sevenDayAverage)}
          note={
            sevenDayDifference === null
              ? undefined
              : `${signed(sevenDayDifference)} vs your overall average of ${formatScore(overallAverage)}`
          }
        />
      </li>
    </ul>
  );
}

function CategoryCharts({ summary }: { summary: InsightsSummary }) {
  const donut = useCallback((layout: { compact: boolean }) => categoriesDonutOption(summary.categories, layout), [summary.categories]);
  const bars = useCallback((layout: { compact: boolean }) => categoriesBarOption(summary.categories, layout), [summary.categories]);
  const table = (caption: string) => (
    <ChartTable
      caption={caption}
      columns={['Category', 'Average score']}
      rows={summary.categories.map((c) => [c.label, `${formatScore(c.average)}/5`])}
    />
  );
  const basis = `Averages of your ${summary.count} ${summary.count === 1 ? 'rating' : 'ratings'}`;
  return (
    <Row gutter={[24, 24]}>
      <Col xs={24} lg={12}>
        <ChartCard title="Joy Categories Breakdown" subtitle={basis}>
          <EChart option={donut} height={280} description={table('Average score of each PERMA category (out of 5)')} />
          <ChartLegend items={summary.categories.map((c) => ({ label: c.label, color: c.color, value: `${formatScore(c.average)}/5` }))} />
        </ChartCard>
      </Col>
      <Col xs={24} lg={12}>
        <ChartCard title="Average Scores by Category" subtitle={`${basis}, on the 1 to 5 scale`}>
          <EChart option={bars} height={316} description={table('Average score of each PERMA category, 1 to 5')} />
        </ChartCard>
      </Col>
    </Row>
  );
}

function PersonalizedInsights({ summary }: { summary: InsightsSummary }) {
  const insights = personalizedInsights(summary);
  return (
    <Card title={<h2 className="card-title">Personalized Insights</h2>}>
      <ul className="insight-list">
        {insights.map((insight) => (
          <li key={insight.kind} className={`insight insight--${insight.kind}`} data-testid={`insight-${insight.kind}`}>
            <span className="insight__icon" aria-hidden="true">
              {INSIGHT_ICONS[insight.kind]}
            </span>
            <div>
              <h3 className="insight__title">{insight.title}</h3>
              <p className="insight__text">{insight.text}</p>
            </div>
          </li>
        ))}
      </ul>
    </Card>
  );
}

export default function InsightsPage() {
  const ratings = useRatings();
  const list = useMemo(() => ratings.data ?? [], [ratings.data]);
  const summary = useMemo(() => insightsSummary(list), [list]);
  const header = <PageHeader title="Joy Insights" subtitle="Patterns in your ratings, and ideas for where to put your energy." />;

  const notReady = ratingsLoadState(ratings, header);
  if (notReady) return notReady;

  if (summary.count === 0) {
    return (
      <>
        {header}
        <Card className="empty-card">
          <BulbOutlined className="empty-card__icon" aria-hidden="true" />
          <h2 className="empty-card__title">No Data Yet</h2>
          <Typography.Paragraph className="empty-card__text">
            Your insights appear after your first rating. Rate your five PERMA factors to get started.
          </Typography.Paragraph>
          <LinkButton to="/dashboard" type="primary" size="large">
            Rate Your Joy
          </LinkButton>
        </Card>
      </>
    );
  }

  return (
    <>
      {header}
      <div className="stack">
        <InsightCards summary={summary} />
        <CategoryCharts summary={summary} />
        <PersonalizedInsights summary={summary} />
      </div>
    </>
  );
}
