/** The files of the web dashboard (dashboard/), by name, as the API serves them. */
export const DASHBOARD_FILES = ['index.html', 'app.js', 'app.css'] as const;
export type DashboardFileName = (typeof DASHBOARD_FILES)[number];

/**
 * Where the API finds the dashboard's built files: next to the function's bundle on AWS (the CDK
 * builds them into it), built in memory by the local runtime. `undefined` for a file it lacks.
 */
export interface DashboardAssets {
  file(name: DashboardFileName): Promise<string | undefined>;
}
