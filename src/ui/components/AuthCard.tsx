import type { ReactNode } from 'react';
import { Paper, Stack, Text, Title } from '@mantine/core';
import { IconTelescope } from '@tabler/icons-react';

/** The frame of the signed-out pages: brand, title, one form. */
export function AuthCard({ title, subtitle, children }: { title: string; subtitle?: ReactNode; children: ReactNode }) {
  return (
    <main className="center-page">
      <Stack gap="md" w="100%" maw={380}>
        <Text fw={700} size="lg" ta="center" component="div" style={{ display: 'flex', gap: 6, justifyContent: 'center', alignItems: 'center' }}>
          <IconTelescope size={22} aria-hidden /> Spyglass
        </Text>
        <Paper withBorder shadow="xs" p="lg" radius="md">
          <Stack gap="md">
            <div>
              <Title order={1} size="h3">
                {title}
              </Title>
              {subtitle && (
                <Text size="sm" className="muted" mt={4}>
                  {subtitle}
                </Text>
              )}
            </div>
            {children}
          </Stack>
        </Paper>
      </Stack>
    </main>
  );
}
