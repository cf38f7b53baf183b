// The Joy Dashboard (SPEC §2 "Your Joy Dashboard"): summary cards, rating panel beside the Current Joy Level
// gauge, and ECharts trend charts. Calculations live in src/dashboard/summary.ts (tested).
import {
  ArrowDownOutlined,
  ArrowUpOutlined,
  LineChartOutlined,
  RiseOutlined,
  SmileOutlined,
} from '@ant-design/icons';
import { Alert, Card, Col, Row, Typography } from 'antd';
import { useMemo } from 'react';
import { EChart } from '../charts/EChart';
import { ChartTable } from '../charts/ChartTable';
import { ChartCard } from '../dashboard/ChartCard';
import { DaysTrackedCard, StatCard } from '../dashboard/StatCard';
import { FACTORS_CHART_HEIGHT, factorsOption, joyTrendOption } from '../dashboard/chartOptions';
import {
  currentFactorTiles,
  dashboardSummaryOf,
  formatTrend,
  lastRatedCaption,
  latestOf,
  ratingLabel,
  trendColor,
  trendPoints,
  TREND_WINDOW,
  type DashboardSummary,
  type TrendPoint,
} from '../dashboard/summary';
import { JoyGauge } from '../components/JoyGauge';
import { PageHeader } from '../components/PageHeader';
import { bothQueries, ratingsLoadState } from '../components/RatingsLoadState';
import { RatingForm } from '../components/RatingForm';
import { RatingHistory } from '../components/RatingHistory';
import { CATEGORY_COLORS } from '../insights/insights';
import { formatScore, scoreBand } from '../lib/score';
import { useRatingPages, useRatingSummary, useRecentRatings } from '../queries';
import { usePersonTimeZone } from '../settings/api';
import { FACTORS, type RatingView } from '@joy/domain';

/** The averages before the summary has come (the page shows its loading state then). */
const NO_AVERAGES = { overall: null, relationships: null, health: null, purpose: null, growth: null, joy: null };

function SummaryCards({ summary }: { summary: DashboardSummary }) {
  const { overall, trend, daysTracked, average, count } = summary;
  return (
    <ul className="summary-cards" aria-label="Summary">
      <li>
        <StatCard
          testId="card-overall"
          label="Overall Joy"
          icon={<SmileOutlined />}
          value={formatScore(overall)}
          valueColor={overall === null ? undefined : scoreBand(overall).color}
          note={overall === null ? 'No rating yet' : scoreBand(overall).message}
        />
      </li>
      <li>
        <StatCard
          testId="card-trend"
          label="Trend"
          icon={<RiseOutlined />}
          value={
            <>
              {trend !== null && (trend >= 0 ? <ArrowUpOutlined aria-hidden="true" /> : <ArrowDownOutlined aria-hidden="true" />)}{' '}
              {formatTrend(trend)}
            </>
          }
          valueColor={trendColor(trend)}
          note={trend === null ? 'Needs two ratings' : 'vs your previous rating'}
        />
      </li>
      <li>
        <DaysTrackedCard days={daysTracked} count={count} />
      </li>
      <li>
        <StatCard
          testId="card-average"
          label="Average"
          icon={<LineChartOutlined />}
          value={formatScore(average)}
          note={average === null ? 'No ratings yet' : 'Across all your ratings'}
        />
      </li>
    </ul>
  );
}

function TrendCharts({ points }: { points: TrendPoint[] }) {
  // Times and days in the person's zone (their setting), the one their days are counted in.
  const zone = usePersonTimeZone();
  const trend = useMemo(() => joyTrendOption(points, zone), [points, zone]);
  const factors = useMemo(() => factorsOption(points, zone), [points, zone]);
  const when = points.map((p) => ratingLabel(p, zone));
  return (
    <Row gutter={[24, 24]}>
      <Col xs={24} xl={12}>
        <ChartCard title="Joy Trend (Last 14 Days)" subtitle={`Overall score of your latest ${points.length} ratings, oldest to newest`}>
          <EChart
            option={trend}
            height={280}
            description={
              <ChartTable
                caption="Overall joy score of your latest ratings (1 to 5)"
                columns={['Rated', 'Overall score']}
                rows={points.map((p, i) => [when[i], `${formatScore(p.overallScore)}/5`])}
              />
            }
          />
        </ChartCard>
      </Col>
      <Col xs={24} xl={12}>
        <ChartCard title="PERMA Factors Breakdown" subtitle="Each factor across the same ratings, one row each">
          <EChart
            option={factors}
            height={FACTORS_CHART_HEIGHT}
            description={
              <ChartTable
                caption="PERMA factor scores of your latest ratings (1 to 5)"
                columns={['Rated', ...FACTORS.map((f) => f.label)]}
                rows={points.map((p, i) => [when[i], ...FACTORS.map((f) => `${p.scores[f.name]}/5`)])}
              />
            }
          />
        </ChartCard>
      </Col>
    </Row>
  );
}

function CurrentScores({ latest }: { latest: RatingView }) {
  const tiles = currentFactorTiles(latest);
  return (
    <Card title={<h2 className="card-title">Current PERMA Scores</h2>}>
      <ul className="perma-tiles">
        {tiles.map((t) => (
          <li key={t.name} className={`perma-tile perma-tile--${t.name}`}>
            <span className="perma-tile__label">{t.label}</span>
            <span className="perma-tile__score">{t.text}</span>
            <span className="perma-tile__bar" aria-hidden="true">
              <span style={{ width: `${(t.score / 5) * 100}%`, background: CATEGORY_COLORS[t.name] }} />
            </span>
          </li>
        ))}
      </ul>
    </Card>
  );
}

export default function DashboardPage() {
  const zone = usePersonTimeZone();
  // The latest ratings by their day (the trend, the gauge, the charts), the newest made a page at a time (the history
  // list), and the totals of every rating.
  const recent = useRecentRatings(TREND_WINDOW);
  const pages = useRatingPages();
  const totals = useRatingSummary(null, null);
  const list = useMemo(() => pages.ratings ?? [], [pages.ratings]);
  const figures = useMemo(() => recent.data ?? [], [recent.data]);
  const summary = useMemo(() => dashboardSummaryOf(figures, totals.data ?? { count: 0, daysTracked: 0, averages: NO_AVERAGES }), [figures, totals.data]);
  const points = useMemo(() => trendPoints(figures), [figures]);
  // The Current Joy Level and PERMA tiles: the latest by the day rated (a missed day rated today is not).
  const latest = useMemo(() => latestOf(figures), [figures]);

  const header = <PageHeader title="Your Joy Dashboard" subtitle="Your joy at a glance: rate today and follow how you're doing." />;

  const notReady = ratingsLoadState(bothQueries(bothQueries(pages, totals), recent), header);
  if (notReady) return notReady;

  if (!latest) {
    return (
      <>
        {header}
        <SummaryCards summary={summary} />
        <Card className="journey-card">
          <div className="journey-card__intro">
            <h2 className="journey-card__title">Start Your Joy Journey</h2>
            <Typography.Paragraph className="journey-card__text">
              Rate the five PERMA factors below — it takes less than a minute. After your second rating your trends and
              charts appear here.
            </Typography.Paragraph>
          </div>
          <RatingForm />
        </Card>
      </>
    );
  }

  return (
    <>
      {header}
      <div className="stack">
        <SummaryCards summary={summary} />
        <Row gutter={[24, 24]}>
          <Col xs={24} lg={14}>
            <Card title={<h2 className="card-title">Rate Your Joy</h2>} className="fill-card">
              <RatingForm showHints={false} />
            </Card>
          </Col>
          <Col xs={24} lg={10}>
            <Card title={<h2 className="card-title">Current Joy Level</h2>} className="fill-card">
              <div className="dashboard-gauge">
                <JoyGauge score={latest.overallScore} caption={lastRatedCaption(latest, zone)} />
              </div>
            </Card>
          </Col>
        </Row>
        {summary.count >= 2 ? (
          <>
            <TrendCharts points={points} />
            <CurrentScores latest={latest} />
          </>
        ) : (
          // A standing notice, not an alert (antd's default role): read where it is, not announced at each visit.
          <Alert
            role="note"
            type="info"
            showIcon
            title="Your charts are on their way"
            description="Rate once more to see your Joy Trend, the PERMA Factors Breakdown and your current PERMA scores."
          />
        )}
        <RatingHistory ratings={list} total={summary.count} more={{ hasMore: pages.hasNextPage, loading: pages.isFetchingNextPage, load: pages.fetchNextPage }} />
      </div>
    </>
  );
}
