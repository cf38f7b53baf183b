import {
  ArrowLeftOutlined,
  CalendarOutlined,
  CopyOutlined,
  DownOutlined,
  KeyOutlined,
  ShareAltOutlined,
  UpOutlined,
} from '@ant-design/icons';
import { Avatar, Button, Card, Col, Row, Spin, Statistic, Tag, Typography } from 'antd';
import { useEffect, useId, useRef, useState } from 'react';
import { usePersonTimeZone } from '../settings/api';
import { useAuth } from '../auth';
import { CareSuggestions } from '../care/CareSuggestions';
import { JoyGauge } from '../components/JoyGauge';
import { PageLoading } from '../components/PageLoading';
import { scoreBand } from '../lib/score';
import { earlierDayAnywhereOf } from '../dashboard/summary';
import { initialOf, type GroupDetailView as GroupDetailData, type GroupMemberView, type GroupRatingView } from '@joy/domain';
import { copyInviteCode, shareInviteCode } from './invite';
import { LeaveGroup } from './LeaveGroup';
import { DeleteGroup, NewInviteCode, RemoveMember, RenameGroup } from './OwnerActions';
import {
  activeMembersText,
  activityTimestamp,
  averageScoreText,
  createdText,
  groupAverageBadgeText,
  groupAverageBadgeVariant,
  hasGroupAverage,
  isNotFoundError,
  latestScoreText,
  memberInitial,
  memberName,
  memberNamesById,
  recentActivity,
} from './logic';
import { useForgetGroup, useGroup, useGroupMembers, useGroupRatings } from './queries';

function BackButton({ onBack }: { onBack: () => void }) {
  return (
    <Button type="link" icon={<ArrowLeftOutlined aria-hidden="true" />} onClick={onBack} className="group-detail__back">
      Back to Groups
    </Button>
  );
}

/** A score coloured by its band, e.g. "2.0" (with "out of 5" for screen readers). */
function Score({ value }: { value: number }) {
  return (
    <span className="group-score" style={{ color: scoreBand(value).color }}>
      <span className="group-score__value">{latestScoreText(value)}</span>
      <span className="visually-hidden"> out of 5</span>
    </span>
  );
}

/** The invite code panel, opened and closed by its toggle, with Copy and Share (and the owner's New invite code). */
function InviteCodePanel({
  group,
  isOwner,
  open,
  onToggle,
  toggleRef,
}: {
  group: GroupDetailData;
  isOwner: boolean;
  open: boolean;
  onToggle: () => void;
  toggleRef: React.RefObject<HTMLButtonElement | null>;
}) {
  const panelId = useId();
  return (
    <div className="invite-panel">
      <Button
        ref={toggleRef}
        icon={<KeyOutlined aria-hidden="true" />}
        aria-expanded={open}
        aria-controls={panelId}
        onClick={onToggle}
      >
        Invite Code {open ? <UpOutlined aria-hidden="true" /> : <DownOutlined aria-hidden="true" />}
      </Button>
      <div id={panelId} hidden={!open} className="invite-panel__body">
        <Typography.Text type="secondary">Share this code so family and friends can join the group.</Typography.Text>
        <div className="invite-panel__row">
          {/* Polite: a new code is read out once it arrives. */}
          <code className="invite-panel__code" data-testid="detail-invite-code" aria-live="polite">
            {group.inviteCode}
          </code>
          <div className="invite-panel__actions">
            <Button icon={<CopyOutlined aria-hidden="true" />} onClick={() => void copyInviteCode(group.inviteCode)}>
              Copy
            </Button>
            <Button icon={<ShareAltOutlined aria-hidden="true" />} onClick={() => void shareInviteCode(group)}>
              Share
            </Button>
          </div>
        </div>
        {isOwner && (
          <div className="invite-panel__owner">
            <NewInviteCode groupId={group.id} />
          </div>
        )}
      </div>
    </div>
  );
}

function StatCards({ group }: { group: GroupDetailData }) {
  return (
    <Row gutter={[{ xs: 8, sm: 16 }, 16]} className="group-stats group-equal-height">
      <Col xs={8}>
        <Card className="home-card group-stat">
          <Statistic title="Total Members" value={group.memberCount} />
        </Card>
      </Col>
      <Col xs={8}>
        <Card className="home-card group-stat">
          <Statistic title="Active This Week" value={group.activeThisWeek} />
        </Card>
      </Col>
      <Col xs={8}>
        <Card className="home-card group-stat">
          <Statistic title="Average Joy Score" value={averageScoreText(group.averageScore)} />
        </Card>
      </Col>
    </Row>
  );
}

function GroupInsights({ group }: { group: GroupDetailData }) {
  const average = group.averageScore;
  const variant = groupAverageBadgeVariant(average);
  return (
    <Row gutter={[16, 16]} className="group-equal-height">
      <Col xs={24} md={10}>
        <Card title={<h2 className="card-title">Group Joy Level</h2>} className="home-card group-gauge-card">
          <JoyGauge score={average} size={180} caption="Average of the members' latest scores" />
        </Card>
      </Col>
      <Col xs={24} md={14}>
        <Card title={<h2 className="card-title">Group Joy Insights</h2>} className="home-card">
          <dl className="group-insights">
            <div className="group-insights__row">
              <dt>Group Average</dt>
              <dd>
                <Tag
                  className={`group-badge group-badge--${variant}`}
                  data-variant={variant}
                  data-testid="group-average-badge"
                >
                  {groupAverageBadgeText(average)}
                </Tag>
              </dd>
            </div>
            <div className="group-insights__row">
              <dt>Active Members</dt>
              <dd>{activeMembersText(group.activeThisWeek, group.memberCount)}</dd>
            </div>
            <div className="group-insights__row">
              <dt>Recent Ratings</dt>
              <dd>{group.recentRatingsCount}</dd>
            </div>
          </dl>
          <Typography.Paragraph type="secondary" className="group-insights__note">
            Members share only their overall joy score. Their factor ratings stay private.
          </Typography.Paragraph>
        </Card>
      </Col>
    </Row>
  );
}

function RecentActivity({ ratings, members }: { ratings: ReturnType<typeof useGroupRatings>; members: GroupMemberView[] }) {
  const names = memberNamesById(members);
  const zone = usePersonTimeZone();
  const items: GroupRatingView[] = recentActivity(ratings.data ?? []);
  return (
    <Card title={<h2 className="card-title">Recent Activity</h2>} className="home-card">
      {ratings.isLoading ? (
        <Spin />
      ) : ratings.isError ? (
        <Typography.Text type="danger">Recent activity could not be loaded.</Typography.Text>
      ) : items.length === 0 ? (
        <>
          <Typography.Text type="secondary">No recent activity yet</Typography.Text>
          {/* Active This Week counts every member who rated this week, also from before they joined: why that can be 3 here. */}
          <Typography.Paragraph type="secondary" className="group-activity__note">
            Ratings show here from the time you and the member are both in the group.
          </Typography.Paragraph>
        </>
      ) : (
        <ol className="group-activity">
          {items.map((rating) => {
            const name = names.get(rating.userId);
            // A missed day rated later says which day: it is not how the member feels now.
            const forDay = earlierDayAnywhereOf(rating);
            return (
              <li key={rating.id} className="group-activity__item">
                <Avatar size={36} className="user-avatar" aria-hidden="true">
                  {initialOf(name ?? 'Member')}
                </Avatar>
                <div className="group-activity__text">
                  {name && <span className="group-activity__name">{name}</span>}
                  <span>Member rated their joy{forDay && ` for ${forDay}`}</span>
                  <time dateTime={rating.createdAt} className="group-activity__time">
                    {activityTimestamp(rating.createdAt, zone)}
                  </time>
                </div>
                <Score value={rating.overallScore} />
              </li>
            );
          })}
        </ol>
      )}
    </Card>
  );
}

function Members({
  group,
  members,
  onShowInvite,
}: {
  group: GroupDetailData;
  members: ReturnType<typeof useGroupMembers>;
  onShowInvite: () => void;
}) {
  const { user } = useAuth();
  const list = members.data ?? [];
  const iAmOwner = user?.id === group.ownerId;
  return (
    <Card title={<h2 className="card-title">Group Members</h2>} className="home-card">
      {members.isLoading ? (
        <Spin />
      ) : members.isError ? (
        <Typography.Text type="danger">The members could not be loaded.</Typography.Text>
      ) : list.length === 0 ? (
        <div className="group-members__empty">
          <Typography.Paragraph>No members yet</Typography.Paragraph>
          <Typography.Paragraph type="secondary">Share the invite code so family and friends can join.</Typography.Paragraph>
          <Button icon={<KeyOutlined aria-hidden="true" />} onClick={onShowInvite}>
            Show Invite Code
          </Button>
        </div>
      ) : (
        <ul className="group-members" data-testid="group-members">
          {list.map((member) => (
            <li key={member.id} className="group-member">
              <Avatar src={member.profileImageUrl || undefined} size={44} className="user-avatar" alt="">
                {memberInitial(member)}
              </Avatar>
              <div className="group-member__text">
                {/* A name too long for the card ends in "…" (groups.css): the title holds it whole. */}
                <span className="group-member__name">
                  <span className="group-member__first-name" title={memberName(member)}>
                    {memberName(member)}
                  </span>
                  {user?.id === member.id && <Tag className="group-member__you">You</Tag>}
                  {member.isOwner && <Tag className="group-member__owner">Owner</Tag>}
                </span>
                {member.email && <span className="group-member__email">{member.email}</span>}
                <span className="group-member__score">
                  {member.latestScore === null ? (
                    <Typography.Text type="secondary">No ratings yet</Typography.Text>
                  ) : (
                    <>
                      <span className="group-member__score-label">Latest joy score</span> <Score value={member.latestScore} />
                    </>
                  )}
                </span>
                {iAmOwner && member.id !== user?.id && (
                  <RemoveMember groupId={group.id} groupName={group.name} userId={member.id} name={memberName(member)} />
                )}
              </div>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

/** Who owns the group once its owner leaves: the longest-standing other member (the members come in join order). */
function nextOwnerName(members: GroupMemberView[] | undefined, ownerId: string | undefined): string | null {
  const next = members?.find((m) => m.id !== ownerId);
  return next ? memberName(next) : null;
}

/** One group: header, invite code, figures, gauge and insights, recent activity, members. */
export function GroupDetail({ groupId, onBack }: { groupId: string; onBack: () => void }) {
  const { user } = useAuth();
  const group = useGroup(groupId);
  const members = useGroupMembers(groupId);
  const ratings = useGroupRatings(groupId);
  const [inviteOpen, setInviteOpen] = useState(false);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const toggleRef = useRef<HTMLButtonElement>(null);
  const name = group.data?.name;
  // Left or deleted: its answers go from the cache once this page is gone (before, they would be asked for again).
  const gone = useRef(false);
  const forget = useForgetGroup();
  useEffect(() => () => void (gone.current && forget(groupId)), [forget, groupId]);
  const leave = () => {
    gone.current = true;
    onBack();
  };

  useEffect(() => {
    if (!name) return;
    document.title = `${name} · Joy`;
    headingRef.current?.focus();
  }, [name]);

  if (group.isLoading) return <PageLoading />;

  if (group.isError || !group.data) {
    const notFound = isNotFoundError(group.error);
    return (
      <div className="group-detail">
        <BackButton onBack={onBack} />
        <div className="groups-empty">
          <Typography.Title level={1} className="groups-empty__title">
            {notFound ? 'Group not found' : 'This group could not be loaded.'}
          </Typography.Title>
          <Typography.Paragraph className="groups-empty__text">
            {notFound
              ? 'It may not exist, or you are not a member. Ask a member for the invite code to join.'
              : 'Please try again.'}
          </Typography.Paragraph>
          {!notFound && <Button onClick={() => void group.refetch()}>Try again</Button>}
        </div>
      </div>
    );
  }

  const data = group.data;
  const isOwner = user?.id === data.ownerId;
  const showInvite = () => {
    setInviteOpen(true);
    toggleRef.current?.focus();
  };
  const memberNames = memberNamesById(members.data ?? []);
  const nameOf = (userId: string, firstName: string | null) => memberNames.get(userId) ?? (firstName?.trim() || 'A member');

  return (
    <div className="group-detail">
      <BackButton onBack={onBack} />
      <header className="group-detail__header">
        <div className="group-detail__heading">
          <Typography.Title level={1} className="page-header__title group-detail__title" ref={headingRef} tabIndex={-1}>
            {data.name}
          </Typography.Title>
          {data.description && <Typography.Paragraph className="group-detail__description" dir="auto">{data.description}</Typography.Paragraph>}
          <Typography.Text type="secondary" className="group-detail__created">
            <CalendarOutlined aria-hidden="true" /> {createdText(data.createdAt)}
          </Typography.Text>
        </div>
        <InviteCodePanel group={data} isOwner={isOwner} open={inviteOpen} onToggle={() => setInviteOpen((o) => !o)} toggleRef={toggleRef} />
      </header>

      <div className="stack">
        <StatCards group={data} />
        <CareSuggestions groupId={groupId} nameOf={nameOf} />
        {hasGroupAverage(data.averageScore) && <GroupInsights group={data} />}
        <Row gutter={[16, 16]}>
          <Col xs={24} lg={10}>
            <RecentActivity ratings={ratings} members={members.data ?? []} />
          </Col>
          <Col xs={24} lg={14}>
            <Members group={data} members={members} onShowInvite={showInvite} />
          </Col>
        </Row>
        <div className="group-detail__manage">
          {isOwner && <RenameGroup group={data} />}
          <LeaveGroup
            groupId={groupId}
            groupName={data.name}
            memberCount={data.memberCount}
            isOwner={isOwner}
            nextOwnerName={nextOwnerName(members.data, user?.id)}
            onLeft={leave}
          />
          {isOwner && <DeleteGroup groupId={groupId} groupName={data.name} onDeleted={leave} />}
        </div>
      </div>
    </div>
  );
}
