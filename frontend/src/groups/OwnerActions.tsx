import { DeleteOutlined, EditOutlined, SyncOutlined, UserDeleteOutlined } from '@ant-design/icons';
import { Button } from 'antd';
import { Confirm } from '../components/Confirm';
import { useState } from 'react';
import type { GroupDetailView } from '@joy/domain';
import { RenameGroupDialog } from './GroupDialogs';
import { useDeleteGroup, useNewInviteCode, useRemoveMember } from './queries';

/** The owner's "Rename group" button and its dialog (opened afresh each time, filled with the group as it is). */
export function RenameGroup({ group }: { group: GroupDetailView }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button icon={<EditOutlined aria-hidden="true" />} onClick={() => setOpen(true)}>
        Rename group
      </Button>
      {open && <RenameGroupDialog open group={group} onClose={() => setOpen(false)} />}
    </>
  );
}

/** The owner's "Remove" beside a member, confirmed first. */
export function RemoveMember({ groupId, groupName, userId, name }: { groupId: string; groupName: string; userId: string; name: string }) {
  const remove = useRemoveMember(groupId);
  return (
    <Confirm
      title={`Remove ${name} from ${groupName}?`}
      description="They will no longer see the group (their Groups page tells them they were removed), and the group will no longer see their joy. The invite code they have will not let them back in: to have them back, make a new invite code and give it to them."
      okText="Remove"
      cancelText="Keep"
      okButtonProps={{ danger: true, loading: remove.isPending }}
      onConfirm={() => remove.mutateAsync(userId).catch(() => undefined)}
    >
      <Button size="small" danger icon={<UserDeleteOutlined aria-hidden="true" />} disabled={remove.isPending} aria-label={`Remove ${name}`}>
        Remove
      </Button>
    </Confirm>
  );
}

/**
 * The owner's "New invite code", confirmed first: the current code stops working (a removed member could otherwise
 * come back with it), and the panel shows the new one once the group is read again.
 */
export function NewInviteCode({ groupId }: { groupId: string }) {
  const change = useNewInviteCode(groupId);
  return (
    <Confirm
      title="Get a new invite code?"
      description="The current code stops working; people who have it can no longer join."
      okText="New invite code"
      cancelText="Keep code"
      okButtonProps={{ loading: change.isPending }}
      onConfirm={() => change.mutateAsync().catch(() => undefined)}
    >
      <Button icon={<SyncOutlined aria-hidden="true" />} disabled={change.isPending}>
        New invite code
      </Button>
    </Confirm>
  );
}

/** The owner's "Delete group", confirmed first; once deleted, back to the group list. */
export function DeleteGroup({ groupId, groupName, onDeleted }: { groupId: string; groupName: string; onDeleted: () => void }) {
  const remove = useDeleteGroup(groupId);
  return (
    <Confirm
      title={`Delete ${groupName}?`}
      description="Every member loses the group and its invite code stops working. This cannot be undone."
      okText="Delete group"
      cancelText="Keep group"
      okButtonProps={{ danger: true, loading: remove.isPending }}
      onConfirm={() => remove.mutateAsync().then(onDeleted, () => undefined)}
    >
      <Button danger type="primary" icon={<DeleteOutlined aria-hidden="true" />} disabled={remove.isPending}>
        Delete group
      </Button>
    </Confirm>
  );
}
