import { EyeOutlined, PlusOutlined, TeamOutlined, UserAddOutlined } from '@ant-design/icons';
import { Alert, Button, Card, Typography } from 'antd';
import type { GroupView } from '@joy/domain';

/** Id of a group card's View button, so the focus can return to it after "Back to Groups". */
export const viewButtonId = (groupId: string) => `group-view-${groupId}`;

interface GroupListProps {
  groups: GroupView[] | undefined;
  isLoading: boolean;
  isError: boolean;
  onRetry: () => void;
  onView: (groupId: string) => void;
  onCreate: () => void;
  onJoin: () => void;
}

/** The user's groups as a grid of cards; the empty state; a loading and an error state. */
export function GroupList({ groups, isLoading, isError, onRetry, onView, onCreate, onJoin }: GroupListProps) {
  if (isLoading) {
    return (
      <div className="page-loading" role="status" aria-live="polite">
        <span>Loading groups...</span>
      </div>
    );
  }
  if (isError || !groups) {
    return (
      <Alert
        type="error"
        showIcon
        title="Your groups could not be loaded."
        action={<Button onClick={onRetry}>Try again</Button>}
      />
    );
  }
  if (groups.length === 0) {
    return (
      <Card className="groups-empty">
        <TeamOutlined className="groups-empty__icon" aria-hidden="true" />
        <Typography.Title level={2} className="groups-empty__title">
          No Groups Yet
        </Typography.Title>
        <Typography.Paragraph className="groups-empty__text">
          Create a group for your family or friends, or join one with an invite code, and support each other's joy.
        </Typography.Paragraph>
        <div className="groups-empty__actions">
          <Button type="primary" size="large" icon={<PlusOutlined aria-hidden="true" />} onClick={onCreate}>
            Create Your First Group
          </Button>
          <Button size="large" icon={<UserAddOutlined aria-hidden="true" />} onClick={onJoin}>
            Join a Group
          </Button>
        </div>
      </Card>
    );
  }
  return (
    <ul className="groups-grid" aria-label="Your groups">
      {groups.map((group) => (
        <li key={group.id}>
          <Card className="group-card home-card">
            <Typography.Title level={2} className="group-card__name">
              {group.name}
            </Typography.Title>
            <p className={group.description ? 'group-card__description' : 'group-card__description is-empty'}>
              {group.description || 'No description'}
            </p>
            <div className="group-card__footer">
              <div className="group-card__code">
                <span className="group-card__code-label">Invite code</span>
                <code data-testid="group-invite-code">{group.inviteCode}</code>
              </div>
              <Button id={viewButtonId(group.id)} type="primary" icon={<EyeOutlined aria-hidden="true" />} onClick={() => onView(group.id)}>
                View<span className="visually-hidden"> {group.name}</span>
              </Button>
            </div>
          </Card>
        </li>
      ))}
    </ul>
  );
}
