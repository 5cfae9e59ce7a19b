import { Tabs } from '@mantine/core';
import { Snippet } from './Copy.tsx';

export interface SnippetTab {
  value: string;
  /** The tab's name. */
  tab: string;
  code: string;
  /** What the code block is, for screen readers and its copy button. */
  label: string;
}

/** Code to copy in several languages, a tab each; the first tab is open. */
export function SnippetTabs({ snippets }: { snippets: SnippetTab[] }) {
  return (
    <Tabs defaultValue={snippets[0]?.value} keepMounted={false}>
      <Tabs.List>
        {snippets.map((s) => (
          <Tabs.Tab key={s.value} value={s.value}>
            {s.tab}
          </Tabs.Tab>
        ))}
      </Tabs.List>
      {snippets.map((s) => (
        <Tabs.Panel key={s.value} value={s.value} pt="sm">
          <Snippet code={s.code} label={s.label} />
        </Tabs.Panel>
      ))}
    </Tabs>
  );
}
