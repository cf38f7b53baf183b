// The Groups page (SPEC §2 'Groups page', 'Group detail'): the list of the user's groups with the Create
// and Join dialogs, or one selected group's detail. The selection lives in the URL (`/groups?group=<id>`),
// so a reload or the browser's Back button keeps it; there is no route of its own (SPEC §2).
import { PlusOutlined, UserAddOutlined } from '@ant-design/icons';
import { Button } from 'antd';
import type { GroupView } from '@joy/domain';
import { useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { PageHeader } from '../components/PageHeader';
import { CreateGroupDialog, JoinGroupDialog } from '../groups/GroupDialogs';
import { GroupDetail } from '../groups/GroupDetail';
import { GroupList, viewButtonId } from '../groups/GroupList';
import { RemovalNotices } from '../groups/RemovalNotices';
import { SELECTED_GROUP_PARAM } from '../groups/logic';
import { useRefreshGroup } from '../groups/queries';
import '../groups/groups.css';
import { useGroups } from '../queries';

type OpenDialog = 'create' | 'join' | null;

/** Focuses a group card's View button; false while the list does not show it. */
function focusViewButton(groupId: string): boolean {
  const button = document.getElementById(viewButtonId(groupId));
  button?.focus();
  return !!button;
}

export default function GroupsPage() {
  const [params, setParams] = useSearchParams();
  const selectedId = params.get(SELECTED_GROUP_PARAM);
  const [dialog, setDialog] = useState<OpenDialog>(null);
  const shownId = useRef(selectedId);
  const returnFocusTo = useRef<string | null>(null);
  const opener = useRef<Element | null>(null);
  const groups = useGroups();
  const refreshGroup = useRefreshGroup();

  const view = (groupId: string) => {
    void refreshGroup(groupId);
    // A new page (ScrollToTop takes it to its top).
    setParams({ [SELECTED_GROUP_PARAM]: groupId });
  };
  const back = () => setParams({});
  const openDialog = (which: OpenDialog) => {
    opener.current = document.activeElement;
    setDialog(which);
  };
  // A group created or joined from the empty list: the dialog's opener went with that list, so the focus goes to
  // the new group's View button rather than the page. From the header, the dialog gives it back to its opener.
  const added = (group: GroupView) => {
    if (!opener.current?.isConnected && !focusViewButton(group.id)) returnFocusTo.current = group.id;
  };

  // After "Back to Groups" (or the browser's Back), the focus returns to the View button of the group that
  // was open, once the list shows it.
  useEffect(() => {
    if (shownId.current && !selectedId) returnFocusTo.current = shownId.current;
    shownId.current = selectedId;
    if (selectedId || !returnFocusTo.current) return;
    if (focusViewButton(returnFocusTo.current)) returnFocusTo.current = null;
  }, [selectedId, groups.data]);

  return (
    <div className="groups-page">
      {selectedId ? (
        <GroupDetail key={selectedId} groupId={selectedId} onBack={back} />
      ) : (
        <>
          <PageHeader
            title="Your Groups"
            subtitle="Share the journey with family and friends: see each other's overall joy and support one another."
            extra={
              <div className="groups-header__actions">
                <Button size="large" icon={<UserAddOutlined aria-hidden="true" />} onClick={() => openDialog('join')}>
                  Join Group
                </Button>
                <Button size="large" type="primary" icon={<PlusOutlined aria-hidden="true" />} onClick={() => openDialog('create')}>
                  Create Group
                </Button>
              </div>
            }
          />
          <RemovalNotices />
          <GroupList
            groups={groups.data}
            isLoading={groups.isLoading}
            isError={groups.isError}
            onRetry={() => void groups.refetch()}
            onView={view}
            onCreate={() => openDialog('create')}
            onJoin={() => openDialog('join')}
          />
        </>
      )}
      <CreateGroupDialog open={dialog === 'create'} onClose={() => setDialog(null)} onAdded={added} />
      <JoinGroupDialog open={dialog === 'join'} onClose={() => setDialog(null)} onAdded={added} />
    </div>
  );
}
