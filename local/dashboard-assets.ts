import { buildDashboard, type DashboardFiles } from '../dashboard/build.ts';
import type { DashboardAssets, DashboardFileName } from '#ports/dashboard-assets.ts';

/**
 * The local runtime's dashboard: built in memory with esbuild on the first request for it (a
 * fraction of a second), so `npm start` and every test runtime pay nothing until someone opens
 * it, and a clean clone needs no build step. A failed build is retried at the next request.
 */
export function localDashboardAssets(): DashboardAssets {
  let files: Promise<DashboardFiles> | undefined;
  return {
    async file(name: DashboardFileName) {
      files ??= buildDashboard().catch((error: unknown) => {
        files = undefined;
        throw error;
      });
      return (await files)[name];
    },
  };
}
