import { LogoutOutlined } from '@ant-design/icons';
import { Button } from 'antd';
import { Confirm } from '../components/Confirm';
import { leaveGroupText } from './logic';
import { useLeaveGroup } from './queries';

/**
 * "Leave group", confirmed first, saying what leaving does (the last member deletes the group; an owner hands it on);
 * once left, back to the group list.
 */
export function LeaveGroup({
  groupId,
  groupName,
  memberCount,
  isOwner,
  nextOwnerName,
  onLeft,
}: {
  groupId: string;
  groupName: string;
  memberCount: number;
  isOwner: boolean;
  nextOwnerName: string | null;
  onLeft: () => void;
}) {
  const leave = useLeaveGroup(groupId);
  return (
    <div className="group-detail__leave">
      <Confirm
        title={`Leave ${groupName}?`}
        description={leaveGroupText({ memberCount, isOwner, nextOwnerName })}
        okText="Leave group"
        cancelText="Stay"
        okButtonProps={{ danger: true, loading: leave.isPending }}
        onConfirm={() => leave.mutateAsync().then(onLeft, () => undefined)}
      >
        <Button danger icon={<LogoutOutlined aria-hidden="true" />} disabled={leave.isPending}>
          Leave group
        </Button>
      </Confirm>
    </div>
  );
}
