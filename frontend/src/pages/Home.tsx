import { BarChartOutlined, DashboardOutlined, TeamOutlined } from '@ant-design/icons';
import { Card, Col, Grid, Row, Statistic, Tag, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import { useAuth } from '../auth';
import { CareReceived } from '../care/CareReceived';
import { JoyGauge } from '../components/JoyGauge';
import { LinkButton } from '../components/LinkButton';
import { PageLoading } from '../components/PageLoading';
import { RatingForm } from '../components/RatingForm';
import { ReminderCard, useTodayUnrated } from '../settings/ReminderCard';
import { formatScore } from '../lib/score';
import { handleUnauthorized } from '../lib/session';
import { displayName } from '../lib/user';
import { useGroups, useLatestRating, useRatingSummary } from '../queries';
import { formatCalendarDay } from '../lib/dates';
import { lastRatedCaption } from '../dashboard/summary';
import { usePersonTimeZone, useSettings } from '../settings/api';
import { lastWeekFirstDay } from '@joy/domain';

export const HOME_GROUPS_SHOWN = 3;

function YourGroups() {
  const groups = useGroups();
  const list = groups.data ?? [];
  return (
    <Card title={<h2 className="card-title">Your Groups</h2>} className="home-card">
      {groups.isLoading ? (
        <Typography.Text type="secondary">Loading groups...</Typography.Text>
      ) : list.length === 0 ? (
        <div className="home-groups__empty">
          <Typography.Paragraph type="secondary">
            Share the journey: create a group for your family or friends, or join one with an invite code.
          </Typography.Paragraph>
          <LinkButton to="/groups" type="primary" icon={<TeamOutlined aria-hidden="true" />} block>
            Join Your First Group
          </LinkButton>
        </div>
      ) : (
        <ul className="home-groups">
          {list.slice(0, HOME_GROUPS_SHOWN).map((group) => (
            <li key={group.id} className="home-groups__item">
              <Link to={`/groups?group=${encodeURIComponent(group.id)}`} className="home-groups__name" title={group.name}>
                {group.name}
              </Link>
              <Tag className="tag-active">Active</Tag>
            </li>
          ))}
          {list.length > HOME_GROUPS_SHOWN && (
            <li className="home-groups__more">+{list.length - HOME_GROUPS_SHOWN} more</li>
          )}
        </ul>
      )}
    </Card>
  );
}

function QuickStats() {
  const groups = useGroups();
  const settings = useSettings();
  // This Week's Average: the ratings of the last 7 days (today and the six before) in the person's zone. No end
  // day: a day after today is one rated in a zone ahead of this one (the person moved west since), today's.
  const zone = settings.data?.timeZone ?? undefined;
  const week = useRatingSummary(lastWeekFirstDay(new Date(), zone), null);
  const average = week.data?.averages.overall ?? null;
  return (
    <Card title={<h2 className="card-title">Quick Stats</h2>} className="home-card">
      <div className="quick-stats">
        <Statistic title="Groups" value={groups.data?.length ?? 0} loading={groups.isLoading} />
        <Statistic title="This Week's Average" value={formatScore(average)} loading={week.isLoading} />
      </div>
    </Card>
  );
}

function QuickActions() {
  return (
    <Card title={<h2 className="card-title">Quick Actions</h2>} className="home-card">
      <div className="quick-actions">
        <LinkButton to="/dashboard" icon={<DashboardOutlined aria-hidden="true" />} block>
          View Dashboard
        </LinkButton>
        <LinkButton to="/insights" icon={<BarChartOutlined aria-hidden="true" />} block>
          See Insights
        </LinkButton>
        <LinkButton to="/groups" icon={<TeamOutlined aria-hidden="true" />} block>
          Manage Groups
        </LinkButton>
      </div>
    </Card>
  );
}

/** Said over Home's form once today has ratings. */
export function ratedTodayText(count: number): string {
  const rated = count === 1 ? 'You have rated today.' : `You have rated today ${count} times.`;
  return `${rated} Saving again adds another rating for today; to change one, use Edit in Your Ratings on the Dashboard.`;
}

export default function Home() {
  const { user, isLoading, isAuthenticated } = useAuth();
  const latest = useLatestRating();
  const zone = usePersonTimeZone();
  const today = useTodayUnrated();
  // "Rate an earlier day" ticked with a day: the card says which day is being rated.
  const [earlierDay, setEarlierDay] = useState<string | null>(null);
  // Care received comes first on a phone (the side column goes under the form and the gauge, 1,900 px down), and
  // heads the side column on a wide screen.
  const wide = Grid.useBreakpoint().lg === true;

  useEffect(() => {
    document.title = 'Home · Joy';
  }, []);

  // SPEC §4: on Home a signed-out user is sent to sign in after 500 ms with a toast.
  useEffect(() => {
    if (!isLoading && !isAuthenticated) handleUnauthorized();
  }, [isLoading, isAuthenticated]);

  if (isLoading || !user) return <PageLoading />;

  return (
    <div className="home">
      <header className="home__greeting">
        <Typography.Title level={1} className="home__title">
          Welcome back, {displayName(user)}!
        </Typography.Title>
        <Typography.Paragraph className="home__prompt">
          How are you feeling today? Let's track your joy together.
        </Typography.Paragraph>
      </header>
      <Row gutter={[24, 24]}>
        <Col xs={24} lg={16}>
          <div className="stack">
            {!wide && <CareReceived />}
            {/* The form comes once the reminder above it is decided: nothing moves it while it is being filled in. */}
            {today.known ? (
              <>
                <ReminderCard />
                <Card
                  id="rate-today"
                  title={<h2 className="card-title">{earlierDay ? `Rate Your Joy for ${formatCalendarDay(earlierDay)}` : 'Rate Your Joy Today'}</h2>}
                  className="home-card"
                >
                  {!earlierDay && today.ratedToday > 0 && (
                    // Saved, the form stays for another rating: a second press is a second rating of today, not a correction.
                    <Typography.Paragraph type="secondary" className="home__rated-today" data-testid="rated-today">
                      {ratedTodayText(today.ratedToday)}
                    </Typography.Paragraph>
                  )}
                  <RatingForm onDayChange={setEarlierDay} />
                </Card>
              </>
            ) : (
              <PageLoading />
            )}
            {latest.data && (
              <Card title={<h2 className="card-title">Your Current Joy Level</h2>} className="home-card">
                <JoyGauge score={latest.data.overallScore} caption={lastRatedCaption(latest.data, zone)} />
              </Card>
            )}
          </div>
        </Col>
        <Col xs={24} lg={8}>
          <div className="stack">
            {wide && <CareReceived />}
            <QuickStats />
            <YourGroups />
            <QuickActions />
          </div>
        </Col>
      </Row>
    </div>
  );
}
