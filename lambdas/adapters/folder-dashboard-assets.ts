import { readFile } from 'node:fs/promises';
import { DASHBOARD_FILES, type DashboardAssets, type DashboardFileName } from '#ports/dashboard-assets.ts';

/**
 * The dashboard's files from a folder, read once and kept: on AWS the `dashboard/` folder the
 * CDK builds next to the api function's bundle. A file the folder lacks is undefined (the route
 * answers 404), so a bundle built without it still serves the API.
 */
export class FolderDashboardAssets implements DashboardAssets {
  private files?: Promise<Map<DashboardFileName, string>>;

  constructor(private readonly folder: URL) {}

  file(name: DashboardFileName): Promise<string | undefined> {
    this.files ??= Promise.all(
      DASHBOARD_FILES.map(
        async (f) => [f, await readFile(new URL(f, this.folder), 'utf8').catch(() => undefined)] as const,
      ),
    ).then((entries) => new Map(entries.filter((e): e is readonly [DashboardFileName, string] => e[1] !== undefined)));
    return this.files.then((files) => files.get(name));
  }
}
