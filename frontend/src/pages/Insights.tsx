// Joy Insights (SPEC §2, §9): summary cards, the categories donut and bar charts, and Personalized Insights.
// Calculations and rules live in src/insights/insights.ts (tested).
import {
  BulbOutlined,
  FireOutlined,
  LineChartOutlined,
  RiseOutlined,
  StarOutlined,
  TrophyOutlined,
} from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Alert, Card, Col, Row, Spin, Typography } from 'antd';
import { useCallback, useMemo, type ReactNode } from 'react';
import { SUBSCRIPTION_STATUS_KEY } from '../care/queries';
import { EChart } from '../charts/EChart';
import { ChartLegend } from '../charts/ChartLegend';
import { ChartTable } from '../charts/ChartTable';
import { ChartCard } from '../dashboard/ChartCard';
import { DaysTrackedCard, StatCard } from '../dashboard/StatCard';
import { formatTrend, trendColor, TREND_WINDOW } from '../dashboard/summary';
import { categoriesBarOption, categoriesDonutOption } from '../insights/chartOptions';
import {
  ADVANCED_INSIGHTS_KEY,
  FORECAST_UNAVAILABLE_NOTE,
  FREE_WINDOW_DAYS,
  FREE_WINDOW_NOTE,
  PREMIUM_ADDS,
  forecastRows,
  ratingsFromDay,
  windowFirstDay,
  weekdayRows,
  weeklyRows,
} from '../insights/advanced';
import { forecastOption, weekdayBarOption, weeklyTrendOption } from '../insights/advancedChartOptions';
import { areaNames, baselineName, CATEGORY_COLORS, CATEGORY_SYMBOLS, insightsSummaryOf, personalizedInsights, SEVEN_DAY_WINDOW, trendWord, type InsightKind, type InsightsSummary } from '../insights/insights';
import { LinkButton } from '../components/LinkButton';
import { PageHeader } from '../components/PageHeader';
import { PageLoading } from '../components/PageLoading';
import { RatingHistory } from '../components/RatingHistory';
import { bothQueries, ratingsLoadState } from '../components/RatingsLoadState';
import { formatScore } from '../lib/score';
import { useRatingPages, useRatingSummary, useRecentRatings } from '../queries';
import { usePersonTimeZone } from '../settings/api';
import { type AdvancedInsights, dayOf, FACTORS, type SubscriptionStatusView } from '@joy/domain';
import { formatCalendarDay } from '../lib/dates';

const INSIGHT_ICONS: Record<InsightKind, ReactNode> = {
  'great-progress': <RiseOutlined />,
  'growth-opportunity': <BulbOutlined />,
  'recent-improvement': <LineChartOutlined />,
  'consistency-milestone': <TrophyOutlined />,
  'strongest-area': <StarOutlined />,
};

/** The averages before the summary has come (the page shows its loading state then). */
const NO_AVERAGES = { overall: null, relationships: null, health: null, purpose: null, growth: null, joy: null };

function signed(diff: number): string {
  return formatTrend(diff);
}

function InsightCards({ summary, windowDays }: { summary: InsightsSummary; windowDays: number | null }) {
  const { recentTrend, areas, daysTracked, sevenDayAverage, sevenDayDifference, overallAverage, count } = summary;
  const top = areas.strongest;
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
          value={areas.level !== null ? 'All level' : top.length > 0 ? areaNames(top) : 'N/A'}
          textValue
          note={areas.level !== null ? `Every area at ${formatScore(areas.level)}/5` : top.length > 0 ? `Average ${formatScore(top[0].average)}/5` : undefined}
        />
      </li>
      <li>
        <DaysTrackedCard days={daysTracked} count={count} windowDays={windowDays} />
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
              : `Your latest ${Math.min(count, SEVEN_DAY_WINDOW)} ratings, ${signed(sevenDayDifference)} vs ${baselineName(windowDays)} of ${formatScore(overallAverage)}`
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

function PersonalizedInsights({ summary, windowDays }: { summary: InsightsSummary; windowDays: number | null }) {
  const insights = personalizedInsights(summary, windowDays);
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

/** Free plan: what Joy Premium adds to Insights, with the way to upgrade. */
function PremiumAddsCard() {
  return (
    <Card title={<h2 className="card-title">Joy Premium adds</h2>} data-testid="premium-adds">
      <ul>
        {PREMIUM_ADDS.map((item) => (
          <li key={item}>{item}</li>
        ))}
      </ul>
      <LinkButton to="/subscribe" type="primary">
        Upgrade
      </LinkButton>
    </Card>
  );
}

function AdvancedCharts({ data }: { data: AdvancedInsights }) {
  const { weeklyFactors, weekdayPattern, forecast } = data;
  const trend = useCallback((layout: { compact: boolean }) => weeklyTrendOption(weeklyFactors, layout), [weeklyFactors]);
  const weekdays = useCallback((layout: { compact: boolean }) => weekdayBarOption(weekdayPattern, layout), [weekdayPattern]);
  const coming = useCallback((layout: { compact: boolean }) => forecastOption(forecast ?? [], layout), [forecast]);
  return (
    <Row gutter={[24, 24]}>
      <Col xs={24}>
        <ChartCard title="Factor Trends by Week" subtitle="Weekly average of each PERMA factor (weeks from Monday, by the days you rated), on the 1 to 5 scale">
          <EChart
            option={trend}
            height={300}
            description={<ChartTable caption="Weekly average of each PERMA factor" columns={['Week', ...FACTORS.map((f) => f.label)]} rows={weeklyRows(weeklyFactors)} />}
          />
          <ChartLegend items={FACTORS.map((f) => ({ label: f.label, color: CATEGORY_COLORS[f.name], shape: CATEGORY_SYMBOLS[f.name] }))} />
        </ChartCard>
      </Col>
      <Col xs={24} lg={12}>
        <ChartCard title="Weekday Pattern" subtitle="Average overall score by day of the week, by the days you rated">
          <EChart
            option={weekdays}
            height={280}
            description={<ChartTable caption="Average overall score by weekday" columns={['Weekday', 'Average score', 'Ratings']} rows={weekdayRows(weekdayPattern)} />}
          />
        </ChartCard>
      </Col>
      <Col xs={24} lg={12}>
        <ChartCard title="Next 7 Days" subtitle="Expected overall score with a 95% range, from the trend of your daily averages">
          {forecast ? (
            <EChart
              option={coming}
              height={280}
              description={<ChartTable caption="Forecast of your overall score for the next 7 days" columns={['Day', 'Expected', 'Range']} rows={forecastRows(forecast)} />}
            />
          ) : (
            <Typography.Paragraph data-testid="forecast-unavailable">{FORECAST_UNAVAILABLE_NOTE}</Typography.Paragraph>
          )}
        </ChartCard>
      </Col>
    </Row>
  );
}

/** Premium: the server's analytics over the whole history. */
function AdvancedAnalytics() {
  const advanced = useQuery<AdvancedInsights>({ queryKey: ADVANCED_INSIGHTS_KEY });
  return (
    <section aria-labelledby="advanced-analytics" className="stack">
      <h2 id="advanced-analytics" className="card-title">
        Advanced Analytics
      </h2>
      {advanced.isLoading ? (
        <Spin />
      ) : advanced.isError || !advanced.data ? (
        <Alert type="error" showIcon title="We couldn't load your advanced analytics." />
      ) : (
        <>
          {advanced.data.firstDay && (
            // A calendar day, shown as written whatever the zone (as a rated day is in the rating list).
            <Typography.Text type="secondary">Your full history since {formatCalendarDay(advanced.data.firstDay)}</Typography.Text>
          )}
          <AdvancedCharts data={advanced.data} />
        </>
      )}
    </section>
  );
}

export default function InsightsPage() {
  const subscription = useQuery<SubscriptionStatusView>({ queryKey: SUBSCRIPTION_STATUS_KEY });
  // Free: the last 30 days only (by the ratings' days, in the person's zone). Premium, or the plan unknown (its check
  // failed): every rating.
  const plan = subscription.data?.isPremium === true ? 'premium' : subscription.data?.isPremium === false ? 'free' : 'unknown';
  const zone = usePersonTimeZone();
  const from = plan === 'free' ? windowFirstDay(FREE_WINDOW_DAYS, zone) : null;
  const windowDays = plan === 'free' ? FREE_WINDOW_DAYS : null;
  const pages = useRatingPages();
  // Not before the plan is known: a free user would otherwise glimpse the full history.
  const totals = useRatingSummary(from, null, { enabled: !subscription.isLoading });
  // The trend and the 7-day average from the latest ratings by their day (not the pages: those go by the time made).
  const recent = useRecentRatings(TREND_WINDOW);
  const all = useMemo(() => pages.ratings ?? [], [pages.ratings]);
  const list = useMemo(() => (from === null ? all : ratingsFromDay(all, from, zone)), [all, from, zone]);
  const figures = useMemo(() => (from === null ? (recent.data ?? []) : ratingsFromDay(recent.data ?? [], from, zone)), [recent.data, from, zone]);
  const summary = useMemo(() => insightsSummaryOf(figures, totals.data ?? { count: 0, daysTracked: 0, averages: NO_AVERAGES }), [figures, totals.data]);
  // Older pages hold more of the window while the last rating loaded was made in it (none made before its day rates it).
  const last = all.at(-1);
  const windowGoesOn = from === null || (last !== undefined && (dayOf(last.createdAt, zone) ?? '') >= from);
  const more = { hasMore: pages.hasNextPage && windowGoesOn, loading: pages.isFetchingNextPage, load: pages.fetchNextPage };
  const header = <PageHeader title="Joy Insights" subtitle="Patterns in your ratings, and ideas for where to put your energy." />;

  const notReady = ratingsLoadState(bothQueries(bothQueries(pages, totals), recent), header);
  if (notReady) return notReady;
  if (subscription.isLoading || totals.isPending) {
    // Not before the plan is known: a free user would otherwise glimpse the full history.
    return (
      <>
        {header}
        <PageLoading />
      </>
    );
  }

  if (summary.count === 0 && all.length > 0) {
    // Free plan, nothing in the last 30 days.
    return (
      <>
        {header}
        <div className="stack">
          <Card className="empty-card">
            <BulbOutlined className="empty-card__icon" aria-hidden="true" />
            <h2 className="empty-card__title">No Ratings in the Last 30 Days</h2>
            <Typography.Paragraph className="empty-card__text">Rate your five PERMA factors to see fresh insights.</Typography.Paragraph>
            <LinkButton to="/dashboard" type="primary" size="large">
              Rate Your Joy
            </LinkButton>
          </Card>
          <PremiumAddsCard />
        </div>
      </>
    );
  }

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
        {plan === 'free' && (
          <Typography.Text type="secondary" data-testid="free-window-note">
            {FREE_WINDOW_NOTE}
          </Typography.Text>
        )}
        <InsightCards summary={summary} windowDays={windowDays} />
        <CategoryCharts summary={summary} />
        <PersonalizedInsights summary={summary} windowDays={windowDays} />
        {plan === 'free' && <PremiumAddsCard />}
        {plan === 'premium' && <AdvancedAnalytics />}
        <RatingHistory ratings={list} total={summary.count} more={more} title={plan === 'free' ? 'Your Ratings (Last 30 Days)' : 'Your Ratings'} />
      </div>
    </>
  );
}
