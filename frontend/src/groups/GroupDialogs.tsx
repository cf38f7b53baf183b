import { CrownOutlined } from '@ant-design/icons';
import { Alert, Button, Form, Input, Modal, type InputRef } from 'antd';
import { useId, useRef, useState, type FormEvent, type ReactNode, type RefObject } from 'react';
import { LinkButton } from '../components/LinkButton';
import { GROUP_DESCRIPTION_MAX, GROUP_NAME_MAX, type GroupView } from '@joy/domain';
import { useOneAtATime, useRequestKey } from '../lib/requestKey';
import { errorKind, parseApiError } from '../lib/apiError';
import { characterLimit } from '../lib/textCount';
import { toast } from '../lib/toast';
import { validateCreateGroup, validateJoinGroup } from './logic';
import { useCreateGroup, useFreePlanLimit, useJoinGroup, useRenameGroup } from './queries';
import { BusyLabel } from '../components/BusyLabel';

interface DialogProps {
  open: boolean;
  onClose: () => void;
}

/** Create or Join: told the group once the dialog has closed (its opener may have gone with the empty list). */
interface AddDialogProps extends DialogProps {
  onAdded?: (group: GroupView) => void;
}

/** A field's error shown under it: invalid, and described by the message (antd ties them only for its own fields). */
function fieldError(id: string, message: string | null, describedBy?: string) {
  const errorId = `${id}-error`;
  return {
    item: { validateStatus: message ? ('error' as const) : undefined, help: message ? <span id={errorId}>{message}</span> : undefined },
    input: {
      'aria-invalid': message ? true : undefined,
      'aria-describedby': [message ? errorId : null, describedBy].filter(Boolean).join(' ') || undefined,
    },
  };
}

/** The free plan's limit, with the way to Joy Premium (PRODUCT.md: "the UI offers the Upgrade"). */
function FreePlanLimit({ message }: { message: string }) {
  return (
    <Alert
      type="warning"
      showIcon
      className="group-dialog__limit"
      title={message}
      action={
        <LinkButton to="/subscribe" size="small" type="primary" icon={<CrownOutlined aria-hidden="true" />}>
          Upgrade
        </LinkButton>
      }
    />
  );
}

/**
 * Dialog frame: a form (so Enter submits), the fields, Cancel and the submit button. Native validation is
 * off: a blank value is told by the spec's toast and under the field; the fields are still marked required
 * (asterisk and aria-required).
 */
function GroupDialog({
  open,
  title,
  formId,
  pending,
  submitText,
  pendingText,
  onSubmit,
  onClose,
  afterClose,
  focusRef,
  children,
}: DialogProps & {
  afterClose?: () => void;
  /** The field that gets the focus each time the dialog opens. */
  focusRef: RefObject<InputRef | null>;
  title: string;
  formId: string;
  pending: boolean;
  submitText: string;
  pendingText: string;
  onSubmit: () => void;
  children: ReactNode;
}) {
  const handleSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!pending) onSubmit();
  };
  return (
    <Modal
      open={open}
      title={title}
      onCancel={onClose}
      afterOpenChange={(isOpen) => {
        if (isOpen) focusRef.current?.focus();
      }}
      afterClose={afterClose}
      footer={null}
      className="group-dialog"
      width={480}
    >
      <form id={formId} noValidate onSubmit={handleSubmit} className="group-dialog__form">
        <Form layout="vertical" component={false}>
          {children}
        </Form>
        <div className="group-dialog__actions">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="primary" htmlType="submit" disabled={pending} aria-busy={pending}>
            <BusyLabel busy={pending} label={submitText} busyLabel={pendingText} />
          </Button>
        </div>
      </form>
    </Modal>
  );
}

/**
 * Group Name (required) and Description (optional, 3 rows): the fields of Create Group and Rename Group. Each shows
 * its count against its limit, so that the field stopping at 80 (or 500) characters is no surprise.
 */
function GroupDetailsFields({
  id,
  nameRef,
  name,
  nameError,
  description,
  onName,
  onDescription,
}: {
  id: string;
  nameRef: RefObject<InputRef | null>;
  name: string;
  nameError: string | null;
  description: string;
  onName: (value: string) => void;
  onDescription: (value: string) => void;
}) {
  const error = fieldError(`${id}-name`, nameError);
  return (
    <>
      <Form.Item label="Group Name" htmlFor={`${id}-name`} required {...error.item}>
        <Input
          id={`${id}-name`}
          // The label's asterisk (CSS) is in Chrome's name of the field: "* Group Name". aria-required says it.
          aria-label="Group Name"
          {...error.input}
          value={name}
          onChange={(e) => onName(e.target.value)}
          placeholder="e.g. The Garcia Family"
          count={characterLimit(GROUP_NAME_MAX)}
          aria-required="true"
          autoComplete="off"
          ref={nameRef}
        />
      </Form.Item>
      <Form.Item label="Description (Optional)" htmlFor={`${id}-description`}>
        <Input.TextArea
          id={`${id}-description`}
          dir="auto"
          value={description}
          onChange={(e) => onDescription(e.target.value)}
          placeholder="What brings this group together?"
          rows={3}
          count={characterLimit(GROUP_DESCRIPTION_MAX)}
        />
      </Form.Item>
    </>
  );
}

/** Create Group: Group Name (required), Description (optional, 3 rows). */
export function CreateGroupDialog({ open, onClose, onAdded }: AddDialogProps) {
  const id = useId();
  const nameRef = useRef<InputRef>(null);
  const [name, setName] = useState('');
  const [nameError, setNameError] = useState<string | null>(null);
  const [description, setDescription] = useState('');
  const created = useRef<GroupView | null>(null);
  const create = useCreateGroup();
  const requestKey = useRequestKey();
  const oneAtATime = useOneAtATime();
  const limit = useFreePlanLimit(create.error);

  const close = () => {
    create.reset();
    setNameError(null);
    onClose();
  };
  const submit = () => {
    const result = validateCreateGroup(name, description);
    if (!result.ok) {
      toast(result.toast);
      setNameError(result.toast.description ?? null);
      nameRef.current?.focus();
      return;
    }
    const body = result.value;
    oneAtATime((settled) =>
      create.mutate(
        { body, idempotencyKey: requestKey.keyFor(body) },
        {
          onSuccess: (group) => {
            requestKey.done();
            created.current = group;
            setName('');
            setDescription('');
            create.reset();
            onClose();
          },
          onSettled: settled,
        },
      ),
    );
  };
  const afterClose = () => {
    if (created.current) onAdded?.(created.current);
    created.current = null;
  };
  const editName = (value: string) => {
    setName(value);
    setNameError(null);
  };

  return (
    <GroupDialog
      open={open}
      title="Create Group"
      formId={`${id}-create`}
      pending={create.isPending}
      submitText="Create Group"
      pendingText="Creating..."
      onSubmit={submit}
      onClose={close}
      afterClose={afterClose}
      focusRef={nameRef}
    >
      <GroupDetailsFields id={id} nameRef={nameRef} name={name} nameError={nameError} description={description} onName={editName} onDescription={setDescription} />
      {limit && <FreePlanLimit message={limit} />}
    </GroupDialog>
  );
}

/** Rename Group (the owner's): the same fields and checks as Create Group, filled with the group's. */
export function RenameGroupDialog({
  open,
  onClose,
  group,
}: DialogProps & { group: { id: string; name: string; description: string | null } }) {
  const id = useId();
  const nameRef = useRef<InputRef>(null);
  const [name, setName] = useState(group.name);
  const [nameError, setNameError] = useState<string | null>(null);
  const [description, setDescription] = useState(group.description ?? '');
  const rename = useRenameGroup(group.id);

  const submit = () => {
    const result = validateCreateGroup(name, description);
    if (!result.ok) {
      toast(result.toast);
      setNameError(result.toast.description ?? null);
      nameRef.current?.focus();
      return;
    }
    rename.mutate({ name: result.value.name, description: result.value.description ?? null }, { onSuccess: onClose });
  };

  return (
    <GroupDialog
      open={open}
      title="Rename Group"
      formId={`${id}-rename`}
      pending={rename.isPending}
      submitText="Save"
      pendingText="Saving..."
      onSubmit={submit}
      onClose={() => {
        setNameError(null);
        onClose();
      }}
      focusRef={nameRef}
    >
      <GroupDetailsFields
        id={id}
        nameRef={nameRef}
        name={name}
        nameError={nameError}
        description={description}
        onName={(value) => {
          setName(value);
          setNameError(null);
        }}
        onDescription={setDescription}
      />
    </GroupDialog>
  );
}

/** Join Group: Invite Code (required; sent as issued, whatever the case and the spaces or dashes typed). */
export function JoinGroupDialog({ open, onClose, onAdded }: AddDialogProps) {
  const id = useId();
  const codeRef = useRef<InputRef>(null);
  const [inviteCode, setInviteCode] = useState('');
  const [codeError, setCodeError] = useState<string | null>(null);
  const joined = useRef<GroupView | null>(null);
  const join = useJoinGroup();
  const oneAtATime = useOneAtATime();
  const limit = useFreePlanLimit(join.error);
  const codeId = `${id}-code`;
  const error = fieldError(codeId, codeError, `${codeId}-hint`);

  const close = () => {
    join.reset();
    setCodeError(null);
    onClose();
  };
  const showCodeError = (message: string | null) => {
    setCodeError(message);
    codeRef.current?.focus();
  };
  const submit = () => {
    const result = validateJoinGroup(inviteCode);
    if (!result.ok) {
      toast(result.toast);
      showCodeError(result.toast.description ?? null);
      return;
    }
    oneAtATime((settled) =>
      join.mutate(result.value, {
        onSuccess: (group) => {
          joined.current = group;
          setInviteCode('');
          join.reset();
          onClose();
        },
        onError: (failure) => {
          // The server's reason about the code (unknown, or not a code at all) goes under it too.
          const kind = errorKind(failure);
          if (kind === 'invalid' || kind === 'not_found') showCodeError(parseApiError(failure).message);
        },
        onSettled: settled,
      }),
    );
  };
  const afterClose = () => {
    if (joined.current) onAdded?.(joined.current);
    joined.current = null;
  };

  return (
    <GroupDialog
      open={open}
      title="Join Group"
      formId={`${id}-join`}
      pending={join.isPending}
      submitText="Join Group"
      pendingText="Joining..."
      onSubmit={submit}
      onClose={close}
      afterClose={afterClose}
      focusRef={codeRef}
    >
      <Form.Item
        label="Invite Code"
        htmlFor={codeId}
        required
        extra={<span id={`${codeId}-hint`}>Ask a member of the group for its 8-character code.</span>}
        {...error.item}
      >
        <Input
          id={codeId}
          // As Group Name: without the label's CSS asterisk.
          aria-label="Invite Code"
          {...error.input}
          value={inviteCode}
          onChange={(e) => {
            setInviteCode(e.target.value);
            setCodeError(null);
          }}
          placeholder="e.g. K7PX9QMB"
          aria-required="true"
          autoComplete="off"
          autoCapitalize="characters"
          spellCheck={false}
          className="group-dialog__code-input"
          ref={codeRef}
        />
      </Form.Item>
      {limit && <FreePlanLimit message={limit} />}
    </GroupDialog>
  );
}
