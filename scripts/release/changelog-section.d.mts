export function changelogSection(
  changelog: string,
  version: string
): { notes: string } | { error: string }
