import { type ComponentType, type ReactNode, useEffect, useId } from 'react';

/**
 * A page that stands in for the one asked for (not found, offline, starting): an icon, a heading that is also the
 * tab's title, a line of text, and what to do (`children`).
 */
export function StatusNotice({ Icon, title, text, children }: { Icon: ComponentType<{ className?: string; 'aria-hidden'?: boolean | 'true' }>; title: string; text: string; children?: ReactNode }) {
  const headingId = useId();
  useEffect(() => {
    document.title = `${title} · Joy`;
  }, [title]);
  return (
    <section className="not-found" aria-labelledby={headingId}>
      <Icon className="not-found__icon" aria-hidden="true" />
      <h1 id={headingId} className="not-found__title">
        {title}
      </h1>
      <p className="not-found__text">{text}</p>
      {children}
    </section>
  );
}
