import type { ReactNode } from 'react';
import { PageHeader } from './PageHeader';

/** Frame of the long text pages (Help, Privacy, Terms): heading, optional contents list, readable column. */
export function ProsePage({
  title,
  subtitle,
  sections,
  children,
}: {
  title: string;
  subtitle?: ReactNode;
  sections?: ReadonlyArray<{ id: string; title: string }>;
  children: ReactNode;
}) {
  return (
    <article className="prose-page">
      <PageHeader title={title} subtitle={subtitle} />
      {sections && sections.length > 0 && (
        <nav aria-label="On this page" className="prose-page__toc">
          <h2 className="prose-page__toc-title">On this page</h2>
          <ol>
            {sections.map((s) => (
              <li key={s.id}>
                <a href={`#${s.id}`}>{s.title}</a>
              </li>
            ))}
          </ol>
        </nav>
      )}
      <div className="prose">{children}</div>
    </article>
  );
}

export function ProseSection({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section id={id} aria-labelledby={`${id}-title`} className="prose__section">
      <h2 id={`${id}-title`}>{title}</h2>
      {children}
    </section>
  );
}
