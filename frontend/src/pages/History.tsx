import { FireOutlined, LeftOutlined, RightOutlined, TrophyOutlined } from '@ant-design/icons';
import { Button, Card, Input, Space, Typography } from 'antd';
import { type FormEvent, useId, useMemo, useState } from 'react';
import { dayOf, FIRST_CALENDAR_DAY, isCalendarDay } from '@joy/domain';
import { ChartTable } from '../charts/ChartTable';
import { EChart } from '../charts/EChart';
import { RatingHistory } from '../components/RatingHistory';
import { PageHeader } from '../components/PageHeader';
import { Link } from 'react-router-dom';
import { PageLoading } from '../components/PageLoading';
import { StatCard } from '../dashboard/StatCard';
import { calendarOption } from '../history/calendarOption';
import { DayRatings } from '../history/DayRatings';
import { formatCalendarDay } from '../lib/dates';
import { formatScore } from '../lib/score';
import { useRatingCalendar, useRatingPages, useRatingSummary } from '../queries';
import { useTodayUnrated } from '../settings/ReminderCard';
import { usePersonTimeZone } from '../settings/api';

const days = (n: number) => `${n} day${n === 1 ? '' : 's'}`;
/** The first year with a calendar: days are counted from 1970 (FIRST_CALENDAR_DAY); before it the server answers 400. */
const FIRST_CALENDAR_YEAR = Number(FIRST_CALENDAR_DAY.slice(0, 4));

/**
 * /history: the year at a glance (GET /api/joy-ratings/calendar: an ECharts calendar heatmap, each day coloured
 * by its mean score), the current and longest streaks, and every rating with its note, to edit or delete. A day's
 * own ratings open from its cell, or from "See a day" (the way without a pointer): DayRatings.
 */
export default function HistoryPage() {
  // Today in the person's zone (their setting, else this device's): the days that can be opened and rated.
  const today = dayOf(new Date(), usePersonTimeZone())!;
  const thisYear = Number(today.slice(0, 4));
  const [year, setYear] = useState(thisYear);
  const [openDay, setOpenDay] = useState<string | null>(null);
  const [typedDay, setTypedDay] = useState('');
  const pickId = useId();
  const calendar = useRatingCalendar(year);
  const ratings = useRatingPages();
  const totals = useRatingSummary(null, null);
  // Phones get the weeks running down the screen: a year across 360 px would be cells of a few pixels.
  const compact = typeof window !== 'undefined' && window.innerWidth < 600;
  const cal = calendar.data;
  // A streak that ends yesterday (today not rated yet) still stands until today ends: say so, not "up to today".
  const todayRating = useTodayUnrated();
  const streakNote = todayRating.unrated && (cal?.currentStreak ?? 0) > 0 ? 'Days in a row, up to yesterday: rate today to keep it going' : 'Days in a row, up to today';
  const option = useMemo(
    () => (layout: { compact: boolean }) => calendarOption(year, cal?.days ?? [], { compact: layout.compact || compact, today }),
    [year, cal, compact, today],
  );

  // A calendar cell's value is [day, score, count].
  const openCell = (value: unknown) => {
    if (Array.isArray(value) && isCalendarDay(value[0])) setOpenDay(value[0]);
  };
  const showTypedDay = (event: FormEvent) => {
    event.preventDefault();
    if (!isCalendarDay(typedDay)) return;
    setOpenDay(typedDay);
    // The calendar behind it shows that day's year (it stayed on the year shown).
    setYear(Math.min(thisYear, Number(typedDay.slice(0, 4))));
  };

  return (
    <div className="history-page">
      <PageHeader title="Your History" subtitle="Every day you rated this year, your streaks, and your ratings with their notes." />
      <div className="history-streaks">
        <StatCard testId="card-current-streak" label="Current Streak" icon={<FireOutlined />} value={cal ? days(cal.currentStreak) : '…'} note={streakNote} />
        <StatCard testId="card-longest-streak" label="Longest Streak" icon={<TrophyOutlined />} value={cal ? days(cal.longestStreak) : '…'} note="Your best run" />
      </div>
      <Card
        className="history-calendar"
        title={<h2 className="card-title">{year}</h2>}
        extra={
          <Space>
            <Button icon={<LeftOutlined aria-hidden="true" />} aria-label={`Show ${year - 1}`} disabled={year <= FIRST_CALENDAR_YEAR} onClick={() => setYear((y) => y - 1)} />
            <Button icon={<RightOutlined aria-hidden="true" />} aria-label={`Show ${year + 1}`} disabled={year >= thisYear} onClick={() => setYear((y) => y + 1)} />
          </Space>
        }
      >
        {calendar.isLoading ? (
          <PageLoading />
        ) : calendar.isError || !cal ? (
          <Typography.Text type="danger">Your calendar could not be loaded. Please reload the page.</Typography.Text>
        ) : (
          <>
            {cal.days.length === 0 && (
              <Typography.Paragraph type="secondary">
                No ratings in {year} yet. {year === thisYear && <Link to="/" className="text-link">Rate today on Home</Link>}
              </Typography.Paragraph>
            )}
            <EChart
              className="history-calendar__chart"
              option={option}
              height={compact ? 860 : 220}
              onItemClick={openCell}
              description={
                <ChartTable
                  caption={`Days rated in ${year}`}
                  columns={['Day', 'Overall score', 'Ratings']}
                  rows={cal.days.map((d) => [formatCalendarDay(d.day), formatScore(d.overallScore), d.count])}
                />
              }
            />
          </>
        )}
        <form className="history-calendar__pick" onSubmit={showTypedDay}>
          <label htmlFor={pickId}>See a day</label>
          <Input id={pickId} type="date" min={FIRST_CALENDAR_DAY} max={today} value={typedDay} onChange={(e) => setTypedDay(e.target.value)} />
          <Button htmlType="submit" disabled={!isCalendarDay(typedDay)}>
            Show
          </Button>
          <Typography.Text type="secondary">or click a day in the calendar</Typography.Text>
        </form>
      </Card>
      <DayRatings day={openDay} onClose={() => setOpenDay(null)} />
      {ratings.isError && <Typography.Text type="danger">Your ratings could not be loaded. Please reload the page.</Typography.Text>}
      {ratings.ratings && ratings.ratings.length > 0 && (
        <RatingHistory
          ratings={ratings.ratings}
          total={totals.data?.count}
          more={{ hasMore: ratings.hasNextPage, loading: ratings.isFetchingNextPage, load: ratings.fetchNextPage }}
        />
      )}
    </div>
  );
}
