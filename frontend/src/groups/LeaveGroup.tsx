import { LogoutOutlined } from '@ant-design/icons';
import { Button } from 'antd';
import { Confirm } from '../components/Confirm';
import { useLeaveGroup } from './queries';

/** "Leave group", confirmed first; once left, back to the group list. */
export function LeaveGroup({ groupId, groupName, onLeft }: { groupId: string; groupName: string; onLeft: () => void }) {
  const leave = useLeaveGroup(groupId);
  return (
    <div className="group-detail__leave">
      <Confirm
        title={`Leave ${groupName}?`}
        description="Its members will no longer see your joy, and you will no longer see theirs. You can rejoin with its invite code."
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
